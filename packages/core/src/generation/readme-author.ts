import type { PageKind } from "../projects/project.js";
import { PAGE_SCHEMAS, type PageAuthor, type PageRequest } from "./page-author.js";
import { readmeCasing } from "./name-casing.js";
import type { AboutContent, AuthContent, FaqContent, LandingContent, PageContent } from "./page-content.js";
import {
  clip,
  clipCode,
  firstSentence,
  isInstallCommand,
  readReadme,
  stripCode,
  stripLeadingEmoji,
  type ReadmeFacts,
  type ReadmeFeature,
  type ReadmeSection,
} from "./readme-reader.js";

/**
 * The embedded page author, used when no language model is configured: it builds every page
 * from the README and the repository metadata, deterministically and without network.
 *
 * It states only what the README or the metadata says (or what is true of the generated site
 * itself: a saas app opens in the browser, the sign-in page exists, the forum is on). When the
 * README says little, pages get fewer, plainer blocks rather than made-up claims.
 *
 * Wishes (`request.instructions`) are read but not followed: a fixed builder cannot change tone,
 * emphasis or wording on request, and copying the wishes into the page would publish
 * instructions as content. The page stays correct; the wishes take effect with a language model.
 */
export function createReadmeAuthor(): PageAuthor {
  return {
    name: "readme",
    async write(request, onText, signal) {
      signal.throwIfAborted();
      const content = PAGE_SCHEMAS[request.kind].parse(buildReadmePage(request)) as PageContent;
      const json = JSON.stringify(content, null, 2);
      for (const chunk of chunks(json, 4)) {
        signal.throwIfAborted();
        onText(chunk);
        await Promise.resolve();
      }
      return content;
    },
  };
}

/** Builds the content of one page; pure and deterministic. */
export function buildReadmePage(request: PageRequest): PageContent {
  const context = createContext(request);
  const builders: Record<PageKind, (context: Context) => PageContent> = {
    template: landingPage,
    about: aboutPage,
    faq: faqPage,
    auth: authPage,
  };
  return builders[request.kind](context);
}

// ---------------------------------------------------------------------------------------------
// Context

interface Context {
  request: PageRequest;
  facts: ReadmeFacts;
  name: string;
  saas: boolean;
  /** "GitHub", "GitLab", … or null for another host. */
  host: string | null;
  /** "on GitHub" or "in its repository". */
  where: string;
  /** The repository address without the scheme, for plain text. */
  repo: string;
  description: string;
  /** What it is, in the README's or the metadata's words; null when neither says. */
  summary: string | null;
  license: string | null;
  language: string | null;
  installCommands: string[];
}

const HOSTS: Record<string, string> = {
  "github.com": "GitHub",
  "gitlab.com": "GitLab",
  "bitbucket.org": "Bitbucket",
  "codeberg.org": "Codeberg",
  "git.sr.ht": "SourceHut",
};

function createContext(request: PageRequest): Context {
  const { product } = request;
  const description = clean(product.description);
  const facts = readReadme(request.readme, { description });
  let hostname = "";
  try {
    hostname = new URL(product.repositoryUrl).hostname.replace(/^www\./, "");
  } catch {
    hostname = "";
  }
  const host = HOSTS[hostname] ?? null;
  const repoName = /\/([^/]+?)(?:\.git)?\/?$/.exec(product.repositoryUrl)?.[1] ?? "";
  const name = readmeCasing(clean(product.name), repoName, facts.title, request.readme) || facts.title || repoName || "This project";
  const topicLanguage = product.topics.map((topic) => TOPIC_LANGUAGES[topic.toLowerCase()]).find(Boolean) ?? null;
  const installCommands = facts.install
    .flatMap((code) => code.split("\n"))
    .filter(isInstallCommand)
    .map((line) => line.trim().replace(/^\$\s*/, ""));
  return {
    request,
    facts,
    name,
    saas: request.type === "saas",
    host,
    where: host ? `on ${host}` : "in its repository",
    repo: product.repositoryUrl.replace(/^[a-z+]+:\/\//i, "").replace(/\/$/, ""),
    description,
    summary: facts.tagline,
    license: facts.license,
    language: facts.language ?? topicLanguage,
    installCommands,
  };
}

const TOPIC_LANGUAGES: Record<string, string> = {
  typescript: "TypeScript", javascript: "JavaScript", python: "Python", rust: "Rust", go: "Go",
  golang: "Go", ruby: "Ruby", php: "PHP", java: "Java", kotlin: "Kotlin", swift: "Swift",
  cpp: "C++", csharp: "C#", elixir: "Elixir", haskell: "Haskell", scala: "Scala", dart: "Dart",
  lua: "Lua", julia: "Julia", zig: "Zig", clojure: "Clojure",
};

const LICENSE_NAMES: Record<string, string> = {
  MIT: "MIT License",
  "Apache-2.0": "Apache License 2.0",
  "GPL-3.0": "GNU GPL v3",
  "GPL-2.0": "GNU GPL v2",
  "AGPL-3.0": "GNU AGPL v3",
  "LGPL-3.0": "GNU LGPL v3",
  "LGPL-2.1": "GNU LGPL v2.1",
  "MPL-2.0": "Mozilla Public License 2.0",
  "BSD-3-Clause": "BSD 3-Clause License",
  "BSD-2-Clause": "BSD 2-Clause License",
  BSD: "BSD License",
  "EPL-2.0": "Eclipse Public License 2.0",
  "EUPL-1.2": "EUPL",
  Unlicense: "Unlicense",
  "CC0-1.0": "CC0 public domain dedication",
  ISC: "ISC License",
  Zlib: "zlib License",
  "BSL-1.0": "Boost Software License",
};

const licenseName = (id: string) => LICENSE_NAMES[id] ?? id;

const ACRONYMS = new Set(["cli", "api", "ui", "ux", "ai", "llm", "css", "html", "json", "yaml", "sql", "http", "cms", "orm", "sdk", "ci", "cd", "pdf", "csv", "ssg", "ssr", "pwa", "gui", "tui", "rest", "graphql", "iot", "ml", "nlp", "seo", "saas", "aws", "gcp", "jwt", "oauth", "s3", "svg", "xml"]);
const TOPIC_NAMES: Record<string, string> = { graphql: "GraphQL", oauth: "OAuth", javascript: "JavaScript", typescript: "TypeScript", nodejs: "Node.js", macos: "macOS", ios: "iOS", github: "GitHub", postgresql: "PostgreSQL", mongodb: "MongoDB" };

/** "static-site" → "static site", "cli" → "CLI". */
function humanizeTopic(topic: string): string {
  return topic
    .split("-")
    .map((word) => TOPIC_NAMES[word] ?? (ACRONYMS.has(word) ? word.toUpperCase() : word))
    .join(" ");
}

// ---------------------------------------------------------------------------------------------
// Text helpers

function clean(text: string | null | undefined): string {
  return (text ?? "").replace(/\s+/g, " ").trim();
}

/** A command or file name as inline code, for fields the pages render with `code` spans. */
const code = (text: string) => (text.includes("`") ? text : `\`${text}\``);

const capitalize = (text: string) => (text ? text[0]!.toUpperCase() + text.slice(1) : text);

/** Lowercases the first letter of an ordinary word ("Parallel" → "parallel"; "JSON", "macOS" stay). */
function lowerFirst(text: string): string {
  const word = /^\S+/.exec(text)?.[0] ?? "";
  return /^[A-Z][a-z'-]*$/.test(word) ? text[0]!.toLowerCase() + text.slice(1) : text;
}

/** Ends a text with a full stop unless it already ends a sentence. */
const sentence = (text: string) => {
  const s = text.trim().replace(/[:;,]$/, "");
  return /[.!?…。！？)"”]$/.test(s) ? s : `${s}.`;
};

const normal = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();

/** True when two texts say the same thing (one contains the other, ignoring case and punctuation). */
function similar(a: string, b: string): boolean {
  const x = normal(a);
  const y = normal(b);
  return Boolean(x && y) && (x.includes(y) || y.includes(x));
}

function list(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function firstParagraph(text: string): string {
  return (text.split("\n\n").find((part) => !part.startsWith("- ")) ?? "").trim();
}

// ---------------------------------------------------------------------------------------------
// Shared pieces

function heroTitle(context: Context): string {
  const source = context.summary ?? context.description;
  if (!source) return clip(context.name, 90);
  let s = stripLeadingEmoji(stripCode(firstSentence(source))).replace(/[.!。]+$/, "");
  const names = [context.name, context.facts.title, context.request.product.name]
    .filter((name): name is string => Boolean(name))
    .map(escapeRegExp)
    .join("|");
  const original = s;
  s = s.replace(new RegExp(`^(?:${names})\\s*(?:[—–:-]|\\s-)\\s+`, "i"), "");
  const rewrite = new RegExp(
    `^(?:${names}|this (?:project|library|tool|package|app|application|repo|repository|module|plugin|extension)|it)\\s+(?:is|provides|offers|gives you)\\s+(.{8,})$`,
    "i",
  ).exec(s);
  if (rewrite) s = rewrite[1]!;
  // Only a rewritten sentence is capitalised: "pyfetcher downloads …" keeps its lowercase name.
  s = s === original ? s.trim() : capitalize(s.trim());
  if (s.length > 90) {
    let cut = -1;
    for (const match of s.matchAll(/,\s|\s[—–-]\s|;\s|\s(?:by|with|in|for|using|via|that|which|so)\s/g)) {
      if (match.index > 90) break;
      if (match.index >= 30) cut = match.index;
    }
    s = cut > 0 ? s.slice(0, cut) : clip(s, 90);
  }
  return s || clip(context.name, 90);
}

/** "name — promise" when it fits the tab, else "name — description", else the name. */
function metaTitle(context: Context, promise: string): string {
  const { name, description } = context;
  for (const tail of [promise, description.replace(/[.!]$/, "")]) {
    if (tail && !similar(tail, name) && `${name} — ${tail}`.length <= 70) return stripCode(`${name} — ${tail}`);
  }
  return clip(name, 70);
}

function metaDescription(context: Context): string {
  return clip(stripCode(context.summary ?? context.description ?? ""), 200) || clip(fallbackSummary(context), 200);
}

/** What can be said of a project whose README and description say nothing. */
function fallbackSummary(context: Context): string {
  return context.saas ? `${context.name} runs in your browser: open the app on this site.` : `${context.name} is a project ${context.where}.`;
}

function ctaLabels(context: Context): { hero: string; closing: string } {
  if (context.saas) return { hero: "Open the app", closing: "Start now" };
  return context.host
    ? { hero: `View on ${context.host}`, closing: `Get started on ${context.host}` }
    : { hero: "View the source", closing: "Get the source" };
}

const PACKAGE_TOOLS: [RegExp, string][] = [
  [/^(?:sudo\s+)?npm\b/, "npm"], [/^yarn\b/, "Yarn"], [/^pnpm\b/, "pnpm"], [/^bun\b/, "Bun"],
  [/^npx\b/, "npx"], [/^(?:pip3?|python3?\s+-m\s+pip)\b/, "pip"], [/^pipx\b/, "pipx"], [/^uv\b/, "uv"],
  [/^poetry\b/, "Poetry"], [/^conda\b/, "conda"], [/^cargo\b/, "Cargo"], [/^go\b/, "Go"],
  [/^gem\b/, "RubyGems"], [/^bundle\b/, "Bundler"], [/^composer\b/, "Composer"], [/^brew\b/, "Homebrew"],
  [/^(?:sudo\s+)?apt(?:-get)?\b/, "apt"], [/^(?:sudo\s+)?(?:dnf|yum)\b/, "dnf"], [/^(?:sudo\s+)?pacman\b/, "pacman"],
  [/^(?:sudo\s+)?snap\b/, "Snap"], [/^choco\b/, "Chocolatey"], [/^scoop\b/, "Scoop"], [/^winget\b/, "winget"],
  [/^dotnet\b/, ".NET"], [/^docker\b/, "Docker"], [/^helm\b/, "Helm"], [/^deno\b/, "Deno"], [/^nix\b/, "Nix"],
  [/^(?:curl|wget)\b/, "an install script"],
];

function installTools(context: Context): string[] {
  const tools = context.installCommands
    .map((command) => PACKAGE_TOOLS.find(([pattern]) => pattern.test(command.replace(/^sudo\s+/, "")))?.[1])
    .filter((tool): tool is string => Boolean(tool));
  return [...new Set(tools)].slice(0, 3);
}

/** Install code for a page: shell blocks joined with "# or", else the first block. */
function installCode(context: Context): string {
  const blocks = context.facts.install;
  const shell = blocks.filter((code) => code.split("\n").some(isInstallCommand));
  const code = shell.length > 1 ? shell.slice(0, 3).join("\n\n# or\n") : (shell[0] ?? blocks[0] ?? "");
  return clipCode(code, 2000);
}

/** README sections with prose worth showing on a page (not install, usage, legal, meta or questions). */
function proseSections(context: Context, page: "landing" | "about"): ReadmeSection[] {
  const roles = context.saas || page === "landing" ? ["overview", "other", "features"] : ["overview", "other", "features", "requirements", "contributing"];
  return context.facts.sections.filter(
    (section) => roles.includes(section.role) && section.text.length >= 30 && !/\?$/.test(section.heading) && section.level < 6,
  );
}

// ---------------------------------------------------------------------------------------------
// Features

const VERBS =
  /^(?:supports|works|runs|has|includes|provides|offers|generates|handles|comes|lets|allows|makes|uses|converts|builds|exports|imports|renders|detects|parses|reads|writes|creates|manages|syncs|integrates|ships|keeps|sends|shows|tracks|finds|saves|stores|sorts|validates|checks|downloads|uploads|caches|compiles|transforms|formats|lints|watches|deploys|scales|automates|understands|needs|requires|produces|returns|accepts|exposes|reports|logs|monitors|notifies|remembers|helps|gives|brings|adds|removes|replaces|protects|encrypts|compresses|resizes|streams|plays|records|translates|searches|indexes|maps|merges|splits|schedules|turns|speaks|connects|answers|organizes|organises|[a-z]+(?:ates|izes|ises|ifies))$/i;
const ADJECTIVES =
  /^(?:fast|faster|small|tiny|lightweight|light|simple|easy|secure|safe|modern|minimal|blazing|blazingly|fully|very|really|extremely|highly|typed|open|free|portable|extensible|configurable|customizable|customisable|composable|reliable|robust|zero-config|cross-platform|native|offline|private|accessible|responsive|friendly|beautiful|clean|small-footprint|dependency-free|[a-z-]+(?:able|ible|ful|less|ous|ive))$/i;
const STOP_WORDS = /^(?:and|or|with|the|a|an|for|to|of|in|on|by|when|that|which|if|at|as|from|into|your|its|their|our|is|are)$/i;
const CONNECTORS = /\s(?:for|with|to|in|on|via|by|from|using|that|which|across|without|through|into|as|per|over|when|so)\s|,\s|\s[—–-]\s|;\s|:\s/;

function featureCard(feature: ReadmeFeature, name: string): { title: string; body: string } | null {
  const text = clean(feature.body).replace(/[.!]$/, "");
  const title = clean(feature.title ?? "").replace(/[.!:]$/, "");
  if (title && text && normal(title) !== normal(text)) {
    return { title: clip(capitalize(stripCode(title)), 60), body: clip(sentence(capitalize(text)), 300) };
  }
  const t = text || title;
  if (!t) return null;
  const words = t.split(/\s+/);

  const cut = CONNECTORS.exec(t);
  const prefix = cut ? t.slice(0, cut.index) : "";
  let cardTitle = t;
  if (prefix && prefix.split(/\s+/).length >= 2 && prefix.length <= 60) cardTitle = prefix;
  else if (t.length > 40) {
    const head = words.slice(0, 5);
    while (head.length > 2 && STOP_WORDS.test(head[head.length - 1]!)) head.pop();
    cardTitle = head.join(" ").replace(/[,;:]$/, "");
  }
  let cardBody: string;
  if (VERBS.test(words[0]!)) cardBody = `${name} ${lowerFirst(t)}`;
  else if (words.every((word) => ADJECTIVES.test(word.replace(/,$/, "")) || /^(?:and|or|&)$/i.test(word))) cardBody = `${name} is ${lowerFirst(t)}`;
  else if (words.length >= 5 || cardTitle !== t) cardBody = capitalize(t);
  else cardBody = `${name} comes with ${lowerFirst(t)}`;
  return { title: clip(capitalize(stripCode(cardTitle)), 60), body: clip(sentence(cardBody), 300) };
}

function features(context: Context): LandingContent["features"] {
  const { name, facts, request } = context;
  const out: { title: string; body: string }[] = [];
  const add = (card: { title: string; body: string } | null) => {
    if (!card || out.length >= 8) return;
    if (out.some((existing) => normal(existing.title) === normal(card.title))) return;
    out.push(card);
  };
  for (const feature of facts.features) add(featureCard(feature, name));
  if (out.length >= 3) return out;

  for (const section of proseSections(context, "landing")) {
    if (out.length >= 3) break;
    const lead = firstParagraph(section.text) || section.text;
    add({ title: clip(section.heading, 60), body: clip(lead, 300) });
  }
  // Facts from the metadata and the site, used only while fewer than three cards exist.
  const extra: ({ title: string; body: string } | null)[] = [
    context.saas
      ? { title: "Runs in your browser", body: `Open ${name} from this site: there is nothing to install.` }
      : context.installCommands[0]
        ? { title: "Install in one line", body: clip(`Install it with ${code(context.installCommands[0])}.`, 300) }
        : null,
    context.license ? { title: "Open source", body: `Released under the ${licenseName(context.license)}.` } : null,
    request.product.topics.length
      ? {
          title: clip(capitalize(list(request.product.topics.slice(0, 3).map(humanizeTopic))), 60),
          body: context.saas
            ? clip(`Built around ${list(request.product.topics.slice(0, 6).map(humanizeTopic))}.`, 300)
            : clip(`Listed ${context.where} under ${list(request.product.topics.slice(0, 6))}.`, 300),
        }
      : null,
    !context.saas && facts.usage.length ? { title: "Example included", body: "A first example from the README is shown below." } : null,
    request.community ? { title: "Community forum", body: "Registered members can ask questions and share tips in the community forum." } : null,
    request.pages.includes("auth") ? { title: "Your own account", body: "Create an account on the sign-in page to get started." } : null,
    context.saas ? null : { title: `Source ${context.where}`, body: clip(`The full source code is ${context.where}, at ${context.repo}.`, 300) },
    { title: `About ${name}`, body: clip(context.summary ?? fallbackSummary(context), 300) },
    context.saas
      ? { title: "Start from this site", body: `Open the app from this site to begin with ${name}.` }
      : { title: "Get started", body: clip(`Everything you need to start is ${context.where}, at ${context.repo}.`, 300) },
  ];
  for (const card of extra) if (out.length < 3) add(card);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Pages

function landingPage(context: Context): LandingContent {
  const { name, facts } = context;
  const title = heroTitle(context);
  const ctas = ctaLabels(context);

  const subtitleCandidates = [
    context.summary && firstSentence(context.summary) !== context.summary ? context.summary.slice(firstSentence(context.summary).length).trim() : "",
    context.description && !(context.summary && similar(context.description, context.summary)) ? context.description : "",
    facts.intro[1] ?? "",
    firstParagraph(proseSections(context, "landing")[0]?.text ?? ""),
    context.summary && !similar(title, firstSentence(context.summary)) ? context.summary : "",
    context.saas ? `${name} runs in your browser. Open the app to get started.` : `The source code of ${name} is ${context.where}.`,
  ];
  const subtitle = subtitleCandidates.find((candidate) => candidate && !similar(candidate, title)) ?? subtitleCandidates[subtitleCandidates.length - 1]!;

  const sections: LandingContent["sections"] = [];
  if (!context.saas && facts.install.length) {
    const tools = installTools(context);
    const prose = firstParagraph(facts.installText);
    const intro =
      prose && /[.!?]$/.test(prose) && !/^or\b/i.test(prose)
        ? prose
        : tools.length
          ? `Install ${name} with ${list(tools).replace(/ and /, " or ")}:`
          : `To install ${name}, run:`;
    sections.push({ title: "Install", body: clip(intro, 1200), code: installCode(context) });
  }
  if (!context.saas && facts.usage.length) {
    const heading = facts.sections.find((section) => section.role === "usage")?.heading;
    const prose = firstParagraph(facts.usageText);
    sections.push({
      title: clip(heading && heading.length <= 40 ? heading : "Usage", 80),
      body: clip(prose || "For example:", 1200),
      code: clipCode(facts.usage[0]!, 2000),
    });
  }
  for (const section of proseSections(context, "landing")) {
    if (sections.length >= (context.saas ? 3 : 4)) break;
    if (section.role === "features" && facts.features.length) continue;
    sections.push({ title: clip(section.heading, 80), body: clip(section.text, 1200) });
  }

  // The second button scrolls to the first section, or to the features when there is none.
  const first = sections[0];
  const secondaryLabel = !first ? "See the features" : first.code && first.title === "Install" ? "How to install" : first.code ? "See an example" : "Learn more";

  const closing = context.saas
    ? { title: clip(`Ready to try ${name}?`, 90), body: clip(`Open the app and start using ${name} in your browser.`, 300) }
    : {
        title: clip(`Get started with ${name}`, 90),
        body: clip(
          context.installCommands[0]
            ? `Install it with ${code(context.installCommands[0])}. The source code and README are ${context.where}.`
            : `The source code${context.request.readme ? " and README are" : " is"} ${context.where}.`,
          300,
        ),
      };

  return {
    kind: "template",
    meta: {
      title: metaTitle(context, title),
      description: metaDescription(context),
    },
    hero: { title, subtitle: clip(sentence(subtitle), 280), primary_cta: { label: ctas.hero }, secondary_cta: { label: secondaryLabel } },
    features: features(context),
    sections,
    closing: { ...closing, cta: { label: ctas.closing } },
  };
}

function aboutPage(context: Context): AboutContent {
  const { name, facts, request } = context;
  const what = [context.summary ?? "", context.description, ...facts.intro.slice(1)]
    .filter(Boolean)
    .filter((text, index, all) => all.findIndex((other) => similar(other, text)) === index);
  const intro = what[0] ?? fallbackSummary(context);

  const sections: AboutContent["sections"] = [];
  const whatItIs = what.slice(1).map(sentence).join("\n\n");
  if (whatItIs) sections.push({ title: "What it is", body: clip(whatItIs, 1500) });
  for (const section of proseSections(context, "about")) {
    if (sections.length >= 8) break;
    if (sections.some((existing) => normal(existing.title) === normal(section.heading))) continue;
    sections.push({ title: clip(section.heading, 80), body: clip(section.text, 1500) });
  }
  if (!context.saas && facts.install.length && sections.length < 8) {
    const commands = context.installCommands.slice(0, 2).map(code);
    const prose = firstParagraph(facts.installText);
    const text = commands.length ? `Install it with ${commands.join(" or ")}.` : prose;
    if (text) sections.push({ title: "Getting it", body: clip(text, 1500) });
  }
  if (sections.length === 0) {
    sections.push({
      title: context.saas ? "Where it runs" : "Where it lives",
      body: context.saas
        ? `${name} runs on this site: open the app in your browser.`
        : clip(`The source code of ${name} is ${context.where}, at ${context.repo}.`, 1500),
    });
  }

  const factsList: AboutContent["facts"] = [];
  if (context.license) factsList.push({ label: "License", value: licenseName(context.license) });
  if (context.language) factsList.push({ label: "Language", value: context.language });
  if (request.product.topics.length) factsList.push({ label: "Topics", value: clip(request.product.topics.join(", "), 120) });
  if (!context.saas) {
    factsList.push({ label: "Repository", value: clip(context.repo, 120) });
    if (clean(request.product.defaultBranch)) factsList.push({ label: "Default branch", value: clip(clean(request.product.defaultBranch), 120) });
    if (context.installCommands[0] && context.installCommands[0].length <= 110) factsList.push({ label: "Install", value: code(context.installCommands[0]) });
  }

  return {
    kind: "about",
    meta: { title: clip(`About ${name}`, 70), description: metaDescription(context) },
    title: clip(`About ${name}`, 90),
    intro: clip(intro, 600),
    sections: sections.slice(0, 8),
    facts: factsList.slice(0, 8),
  };
}

/** "name is …" from the summary and the description. */
function whatIs(context: Context): string {
  const { name, summary, description } = context;
  const parts = [summary ?? "", description && !(summary && similar(description, summary)) ? description : ""].filter(Boolean).map(sentence);
  if (!parts.length) return fallbackSummary(context);
  if (/^(?:a|an|the)\s/i.test(parts[0]!)) parts[0] = `${name} is ${lowerFirst(parts[0]!)}`;
  return parts.join(" ");
}

function faqPage(context: Context): FaqContent {
  const { name, facts, request } = context;
  const items: FaqContent["items"] = [];
  const add = (question: string, answer: string) => {
    if (items.length >= 20 || !clean(question) || !clean(answer)) return;
    if (items.some((item) => normal(item.question) === normal(question))) return;
    items.push({ question: clip(clean(question), 200), answer: clip(answer.trim(), 1500) });
  };

  // Only the README's own questions: its Installation or License sections are not questions,
  // and they are on the landing and about pages already.
  for (const entry of facts.faq) add(entry.question, entry.answer);

  // The page needs three entries. When the README asks fewer, the rest say what is true of the
  // site itself (what it is, the forum, accounts, where the source is), never a README section.
  if (items.length < 3) {
    const fillers: [string, string][] = [
      [`What is ${name}?`, whatIs(context)],
      ...(context.saas ? [["Do I need to install anything?", `No. ${name} runs on this site: open the app in your browser.`] as [string, string]] : []),
      ...(request.community ? [["Is there a community?", "Yes. Registered members can join the community forum, linked from the menu."] as [string, string]] : []),
      ...(request.pages.includes("auth") ? [["How do I create an account?", "Use the sign-in page of this site: choose “Create account”."] as [string, string]] : []),
      ...(context.saas
        ? [["How do I get started?", `Open the app from this site${request.pages.includes("auth") ? " and create an account on the sign-in page" : ""}.`] as [string, string]]
        : [
            [`Where is the source code of ${name}?`, `${capitalize(context.where)}: ${context.repo}.`] as [string, string],
            ["How do I get started?", request.readme ? `Read the README in the repository ${context.where}: ${context.repo}.` : `Start with the repository ${context.where}: ${context.repo}.`] as [string, string],
          ]),
    ];
    for (const [question, answer] of fillers) if (items.length < 3) add(question, answer);
  }

  return {
    kind: "faq",
    meta: { title: clip(`${name} FAQ`, 70), description: clip(`Answers to common questions about ${name}.`, 200) },
    title: "Frequently asked questions",
    intro: clip(`Answers to common questions about ${name}.`, 400),
    items,
  };
}

function authPage(context: Context): AuthContent {
  const { name, request } = context;
  const note = request.community
    ? `Members can join the ${name} community forum and talk with other users.`
    : `New to ${name}? Create an account to get started.`;
  return {
    kind: "auth",
    meta: { title: clip(`Sign in — ${name}`, 70), description: clip(`Sign in to ${name} or create an account.`, 200) },
    title: clip(`Sign in to ${name}`, 90),
    subtitle: context.saas
      ? "Sign in to open the app, or create an account to get started."
      : clip(`Sign in with your ${name} account, or create one.`, 280),
    sign_in_label: "Sign in",
    sign_up_label: "Create account",
    note: clip(note, 300),
  };
}

/** Splits text into about `count` pieces at line ends. */
function chunks(text: string, count: number): string[] {
  const lines = text.split(/(?<=\n)/);
  const size = Math.ceil(text.length / count);
  const out: string[] = [];
  let current = "";
  for (const line of lines) {
    current += line;
    if (current.length >= size) {
      out.push(current);
      current = "";
    }
  }
  if (current) out.push(current);
  return out;
}
