import type { AboutContent, AuthContent, FaqContent, LandingContent, PageContent, SiteContext } from "@reposite/core";

/**
 * Sample page contents for rendering tests: realistic, full (every optional part present, lists
 * near their maximum) and with the awkward bits real READMEs have: code with `<`, `&` and quotes,
 * long unbroken paths, lists inside answers, README tables, screenshots and the README's own links.
 */

/** A small screenshot as a `data:` image: pages may show pictures only from the site itself or inline. */
export const SAMPLE_SCREENSHOT =
  "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSI2NDAiIGhlaWdodD0iMzYwIiB2aWV3Qm94PSIwIDAgNjQwIDM2MCI+PHJlY3Qgd2lkdGg9IjY0MCIgaGVpZ2h0PSIzNjAiIGZpbGw9IiMwZjE3MmEiLz48cmVjdCB4PSIyNCIgeT0iMjQiIHdpZHRoPSI1OTIiIGhlaWdodD0iNDAiIHJ4PSI2IiBmaWxsPSIjMWUyOTNiIi8+PGNpcmNsZSBjeD0iNDgiIGN5PSI0NCIgcj0iOCIgZmlsbD0iIzIyYzU1ZSIvPjxyZWN0IHg9IjY4IiB5PSIzOCIgd2lkdGg9IjIyMCIgaGVpZ2h0PSIxMiIgcng9IjMiIGZpbGw9IiM5NGEzYjgiLz48ZyBmaWxsPSIjMjJjNTVlIj48cmVjdCB4PSIyNCIgeT0iOTIiIHdpZHRoPSI4IiBoZWlnaHQ9IjIzNiIvPjwvZz48cmVjdCB4PSI0OCIgeT0iMTAwIiB3aWR0aD0iMzAwIiBoZWlnaHQ9IjE0IiByeD0iMyIgZmlsbD0iI2UyZThmMCIvPjxyZWN0IHg9IjQ4IiB5PSIxMjgiIHdpZHRoPSI1MjAiIGhlaWdodD0iMTAiIHJ4PSIzIiBmaWxsPSIjNjQ3NDhiIi8+PHJlY3QgeD0iNDgiIHk9IjE1MCIgd2lkdGg9IjQ2MCIgaGVpZ2h0PSIxMCIgcng9IjMiIGZpbGw9IiM2NDc0OGIiLz48cmVjdCB4PSI0OCIgeT0iMTk2IiB3aWR0aD0iNTY4IiBoZWlnaHQ9IjEyMCIgcng9IjgiIGZpbGw9IiMxZTI5M2IiLz48cG9seWxpbmUgcG9pbnRzPSI2NCwyOTAgMTQwLDI2MCAyMTYsMjcyIDI5MiwyMjAgMzY4LDIzNiA0NDQsMjAwIDUyMCwyMTQgNjAwLDE4MCIgZmlsbD0ibm9uZSIgc3Ryb2tlPSIjMjJjNTVlIiBzdHJva2Utd2lkdGg9IjQiLz48L3N2Zz4=";

export const sampleLanding: LandingContent = {
  kind: "template",
  meta: {
    title: "Lumen — status pages and uptime checks you host yourself",
    description: "Lumen watches your websites and APIs, opens incidents when they fail and publishes a status page your users can trust.",
  },
  hero: {
    title: "Status pages your users actually trust",
    subtitle:
      "Lumen checks your websites, APIs and cron jobs every thirty seconds, opens an incident the moment something breaks and keeps a public status page honest without anyone touching it.",
    primary_cta: { label: "Get started" },
    secondary_cta: { label: "See how it works" },
    image: { src: SAMPLE_SCREENSHOT, alt: "The Lumen dashboard: three checks up, a latency chart over the last hour" },
  },
  features: [
    { title: "Checks every 30 seconds", body: "HTTP, TCP, DNS and heartbeat checks from several regions, so one flaky network path never wakes anybody up." },
    { title: "Incidents write themselves", body: "When a check fails twice, Lumen opens an incident with the failing responses attached and updates it as checks recover." },
    { title: "A status page in your colours", body: "Publish a fast, accessible status page on your own domain. It keeps working when the rest of your stack does not." },
    { title: "Alerts where you already are", body: "Email, webhooks, Slack and Matrix. Quiet hours and escalation rules keep alerts for the people on call." },
    { title: "Config as code", body: "Every check lives in a small YAML file next to your code, reviewed like any other change: `lumen.yaml`." },
    { title: "Yours to run", body: "One binary and a SQLite file. No agents to install, no data leaves your servers, MIT licensed." },
  ],
  sections: [
    {
      title: "Install in a minute",
      body: "Lumen ships as one binary for Linux, macOS and Windows. Install it with npm or download it from the releases page, then create a project in an empty folder.",
      code: "npm install --global @lumen/cli\nlumen init my-status-page && cd my-status-page\nlumen up --port 8080",
    },
    {
      title: "Describe what to watch",
      body:
        "Checks are plain YAML. Each one names a target, how often to look and what counts as healthy.\n\n- HTTP checks compare status codes & response bodies\n- Heartbeats expect your cron job to call in\n- Keep secrets in `~/.config/lumen/secrets.d/production-eu-west-1.env`, never in the file",
      code: 'checks:\n  - name: "API <health>"\n    url: /health?verbose=1&region=eu\n    every: 30s\n    expect: { status: 200, body_contains: "ok" }',
    },
    {
      title: "How fast it is",
      body: "Measured on a 2-core VPS with 500 checks, each every 30 seconds:",
      table: {
        header: ["Setup", "Checks per second", "Memory", "p99 latency"],
        rows: [
          ["Lumen 1.4 (SQLite)", "1,250", "48 MB", "12 ms"],
          ["Lumen 1.4 (`--wal`)", "1,980", "52 MB", "9 ms"],
          ["Hosted competitor", "—", "n/a", "140 ms"],
        ],
      },
    },
    {
      title: "Share the status page",
      body: "Point a subdomain at Lumen and the status page is live. Subscribers get an email when an incident opens and when it is resolved, and nobody has to remember to post an update.",
    },
  ],
  closing: {
    title: "Know before your users do",
    body: "Install it with `npm install --global @lumen/cli` and set up your first check in less time than it takes to read the incident report you will not have to write.",
    cta: { label: "Start monitoring", href: "https://github.com/lumen-dev/lumen/releases/latest" },
  },
};

export const sampleAbout: AboutContent = {
  kind: "about",
  meta: { title: "About Lumen", description: "Why Lumen exists, who builds it and how it is licensed." },
  title: "Built by people who were tired of being paged",
  intro:
    "Lumen started as a weekend script on a small team's server, after one too many outages we heard about from customers first. It grew into a monitor that is honest, quiet and easy to run yourself.",
  sections: [
    {
      title: "Why we built it",
      body: "Hosted monitoring is either expensive or noisy, and status pages are usually updated by hand, late. We wanted checks, incidents and the public page to be one thing, driven by the same data.\n\nLumen keeps the whole history in a single SQLite file, so you can back it up with `cp`.",
    },
    {
      title: "How it is made",
      body: "Lumen is written in Go and TypeScript. Every release is built in public CI, signed and published with a changelog. Contributions are welcome: start with an issue labelled good-first-issue.",
      table: {
        header: ["Platform", "Architectures", "Package"],
        rows: [
          ["Linux", "x86-64, arm64", "`.deb`, `.rpm`, tarball"],
          ["macOS", "arm64, x86-64", "Homebrew"],
          ["Windows", "x86-64", "`.msi`"],
        ],
      },
      image: { src: SAMPLE_SCREENSHOT, alt: "A Lumen status page during an incident" },
    },
    {
      title: "What comes next",
      body: "Multi-region checks from volunteers' servers, a mobile-friendly on-call view and imports from the tools people are leaving.",
    },
  ],
  facts: [
    { label: "License", value: "MIT" },
    { label: "First release", value: "2021" },
    { label: "Written in", value: "Go and TypeScript" },
    { label: "Contributors", value: "Over 140 people" },
  ],
};

export const sampleFaq: FaqContent = {
  kind: "faq",
  meta: { title: "Lumen FAQ", description: "Answers to common questions about running Lumen." },
  title: "Frequently asked questions",
  intro: "Short answers to what people ask before they run Lumen. Something missing? Ask in the community forum.",
  items: [
    { question: "Is Lumen free?", answer: "Yes. Lumen is MIT licensed and free to run on your own servers. The hosted app has a free tier as well." },
    {
      question: "What do I need to run it?",
      answer: "A Linux, macOS or Windows machine with 256 MB of memory. Lumen stores everything in one SQLite file, so there is no database to set up.",
    },
    {
      question: "How often are checks run?",
      answer: "Every 30 seconds by default. You can set any interval from 10 seconds to a day per check:\n\n- `every: 10s` for payment endpoints\n- `every: 1h` for nightly jobs",
    },
    { question: "Can I use my own domain for the status page?", answer: "Yes. Point a CNAME at your Lumen server and set `status.domain` in the config." },
    {
      question: "Where does my data go?",
      answer: "Nowhere but your server. Lumen sends no telemetry; alerts go only to the channels you configure.",
    },
    {
      question: "Does it work with <script> tags & other HTML in check names?",
      answer: "Check names are shown as text everywhere, so `<b>` stays `<b>` and nothing runs.",
    },
  ],
};

export const sampleAuth: AuthContent = {
  kind: "auth",
  meta: { title: "Sign in to Lumen", description: "Sign in or create a Lumen account." },
  title: "Welcome back",
  subtitle: "Sign in to see your checks and incidents, or create an account in a few seconds.",
  sign_in_label: "Sign in",
  sign_up_label: "Create account",
  note: "Members get incident emails, early builds and a vote on the roadmap. We never share your address.",
};

/** One rich sample per page kind. */
export const samplePages: { template: LandingContent; about: AboutContent; faq: FaqContent; auth: AuthContent } = {
  template: sampleLanding,
  about: sampleAbout,
  faq: sampleFaq,
  auth: sampleAuth,
};

/** The samples as a list, landing page first. */
export const samplePageList: PageContent[] = [sampleLanding, sampleAbout, sampleFaq, sampleAuth];

/**
 * The least content the schemas allow: three features, no sections (so no code), no secondary
 * button, no facts, three questions. Layouts must not leave holes or broken headings with it.
 */
export const sparsePages: { template: LandingContent; about: AboutContent; faq: FaqContent; auth: AuthContent } = {
  template: {
    kind: "template",
    meta: { title: "Tiny", description: "A tiny tool." },
    hero: { title: "Tiny", subtitle: "Does one thing.", primary_cta: { label: "Try it" } },
    features: [
      { title: "Small", body: "Fits anywhere." },
      { title: "Fast", body: "Starts at once." },
      { title: "Free", body: "MIT licensed." },
    ],
    sections: [],
    closing: { title: "Ready?", body: "Go.", cta: { label: "Try it" } },
  },
  about: {
    kind: "about",
    meta: { title: "About Tiny", description: "About." },
    title: "About",
    intro: "A tiny tool.",
    sections: [{ title: "Why", body: "Because." }],
    facts: [],
  },
  faq: {
    kind: "faq",
    meta: { title: "FAQ", description: "Questions." },
    title: "FAQ",
    intro: "Questions.",
    items: [
      { question: "Why?", answer: "Because." },
      { question: "How?", answer: "Simply." },
      { question: "When?", answer: "Now." },
    ],
  },
  auth: {
    kind: "auth",
    meta: { title: "Sign in", description: "Sign in." },
    title: "Sign in",
    subtitle: "Welcome.",
    sign_in_label: "Sign in",
    sign_up_label: "Sign up",
    note: "Thanks.",
  },
};

/** A site with every page and the community on; override what a test varies. */
export function sampleSite(overrides: Partial<SiteContext> = {}): SiteContext {
  return {
    name: "Lumen",
    logoUrl: "",
    colorMode: "",
    type: "saas",
    repositoryUrl: "https://github.com/lumen-dev/lumen",
    appPath: "/app/",
    pages: ["template", "about", "faq", "auth"],
    community: true,
    year: 2025,
    ...overrides,
  };
}

/** Worst-case text for a phone: a 35-letter one-word name, long words and titles at their longest. */
export const STRESS_NAME = "Hyperconvergedinfrastructuremonitor";
export const stressLanding: LandingContent = {
  ...samplePages.template,
  hero: {
    ...samplePages.template.hero,
    title: "Supercalifragilisticexpialidocious observability for kubernetes-operators everywhere",
    primary_cta: { label: "Start your free self-hosted trial" },
    secondary_cta: { label: "Read the installation guide" },
  },
  features: Array.from({ length: 8 }, (_, i) => ({
    title: `Internationalization-ready dashboards number ${i + 1} of eight`,
    body: "Configuration lives in `~/.config/hyperconverged/infrastructure-monitor/dashboards.d/production-eu-west-1.yaml` beside the rest.",
  })),
  sections: [
    ...samplePages.template.sections,
    {
      title: "A very long command line",
      body: "Copy this:",
      code: `docker run --rm -it -p 8080:8080 -v "$PWD/config:/etc/${STRESS_NAME}" ghcr.io/example/${STRESS_NAME}:latest --verbose`,
    },
  ],
};
