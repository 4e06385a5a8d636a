import type { Block } from "./flow.js";
import { sectionText } from "./section-text.js";
import { descendants, firstOfRole, type Outline, type RawSection } from "./sections.js";

type Code = Extract<Block, { type: "code" }>;

const INSTALL_COMMAND =
  /^\s*(?:\$\s*)?(?:sudo\s+)?(?:npm\s+(?:i|install|add)\b|yarn\s+(?:global\s+)?add\b|pnpm\s+(?:add|i|install)\b|bun\s+(?:add|install|i)\b|npx\s+\S|pip3?\s+install\b|python3?\s+-m\s+pip\s+install\b|pipx\s+install\b|uv\s+(?:add|pip\s+install|tool\s+install)\b|poetry\s+add\b|conda\s+install\b|cargo\s+(?:install|add)\b|go\s+(?:install|get)\b|gem\s+install\b|bundle\s+add\b|composer\s+(?:global\s+)?require\b|brew\s+install\b|apt(?:-get)?\s+install\b|dnf\s+install\b|yum\s+install\b|pacman\s+-S\b|snap\s+install\b|choco\s+install\b|scoop\s+install\b|winget\s+install\b|dotnet\s+(?:add|tool\s+install)\b|docker\s+(?:pull|run)\b|helm\s+install\b|deno\s+(?:add|install)\b|nix\s+profile\s+install\b|mix\s+archive\.install\b|curl\s.+\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|wget\s.+\|\s*(?:sudo\s+)?(?:ba)?sh\b)/i;

/** True when a line is a package-manager install command (`npm install x`, `pip install x`, …). */
export function isInstallCommand(line: string): boolean {
  return INSTALL_COMMAND.test(line);
}

export interface InstallFacts {
  /** Code under Install/Installation/Getting started/Setup; else install commands found elsewhere. */
  install: string[];
  installText: string;
  /** Code under Usage/Example(s)/Quick start (else a fitting example elsewhere). */
  usage: string[];
  usageText: string;
  /** The code blocks the usage came from, then the install section's: for the language. */
  samples: Code[];
}

const codeOf = (group: RawSection[]) => group.flatMap((section) => section.blocks.filter((block): block is Code => block.type === "code" && Boolean(block.code.trim())));

/** The prose of a section, else of its first subsection that has some. */
function proseOf(sections: RawSection[], index: number): string {
  if (index < 0) return "";
  for (const section of descendants(sections, index)) {
    const prose = sectionText(section.blocks);
    if (prose) return prose;
  }
  return "";
}

/** How the README says to install and use the project: its install and usage sections' code and prose. */
export function readInstall(outline: Outline, allBlocks: Block[]): InstallFacts {
  const { sections } = outline;
  const installIndex = firstOfRole(sections, "install");
  const installCode = installIndex >= 0 ? codeOf(descendants(sections, installIndex)) : [];
  let install = installCode.filter((block) => !/^(?:json|yaml|yml|toml|text|txt|output)$/.test(block.lang)).map((block) => block.code);
  if (!install.length && installIndex >= 0) {
    const spans = descendants(sections, installIndex).flatMap((section) =>
      section.blocks.flatMap((block) => {
        const text = block.type === "paragraph" ? block.text : block.type === "list" ? block.items.map((item) => item.text).join("\n") : "";
        return [...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!.trim());
      }),
    );
    install = spans.filter(isInstallCommand).slice(0, 3);
  }
  if (!install.length) {
    for (const block of allBlocks) {
      if (block.type !== "code") continue;
      const commands = block.code.split("\n").filter(isInstallCommand);
      if (commands.length) {
        install = [commands.slice(0, 3).join("\n")];
        break;
      }
    }
  }
  const usageIndex = firstOfRole(sections, "usage");
  let usageBlocks = usageIndex >= 0 ? codeOf(descendants(sections, usageIndex)) : [];
  if (!usageBlocks.length && installIndex >= 0 && /^get/i.test(sections[installIndex]!.heading)) {
    usageBlocks = installCode.filter((block) => !block.code.split("\n").every((line) => !line.trim() || isInstallCommand(line)));
  }
  if (!usageBlocks.length) usageBlocks = outline.intro.filter((block): block is Code => block.type === "code");
  if (!usageBlocks.length) {
    // A library's API section often holds the only example.
    const example = sections
      .filter((section) => ["reference", "overview", "other", "features"].includes(section.role))
      .flatMap((section) => section.blocks)
      .find((block): block is Code => block.type === "code" && block.code.split("\n").some((line) => line.trim() && !isInstallCommand(line)));
    if (example) usageBlocks = [example];
  }
  return {
    install,
    installText: proseOf(sections, installIndex),
    usage: usageBlocks.map((block) => block.code).filter((code) => !install.includes(code)),
    usageText: proseOf(sections, usageIndex),
    samples: [...usageBlocks, ...installCode],
  };
}

const FENCE_LANGUAGES: Record<string, string> = {
  js: "JavaScript", javascript: "JavaScript", jsx: "JavaScript", mjs: "JavaScript", cjs: "JavaScript",
  ts: "TypeScript", typescript: "TypeScript", tsx: "TypeScript", mts: "TypeScript",
  py: "Python", python: "Python", python3: "Python", pycon: "Python",
  rs: "Rust", rust: "Rust", go: "Go", golang: "Go", rb: "Ruby", ruby: "Ruby", php: "PHP",
  java: "Java", kt: "Kotlin", kotlin: "Kotlin", swift: "Swift", c: "C", cpp: "C++", "c++": "C++",
  cxx: "C++", cs: "C#", csharp: "C#", "c#": "C#", ex: "Elixir", exs: "Elixir", elixir: "Elixir",
  hs: "Haskell", haskell: "Haskell", scala: "Scala", dart: "Dart", lua: "Lua", julia: "Julia",
  zig: "Zig", nim: "Nim", clj: "Clojure", clojure: "Clojure", erlang: "Erlang", ocaml: "OCaml",
  fsharp: "F#", "f#": "F#", perl: "Perl", r: "R", elm: "Elm", crystal: "Crystal", v: "V",
};

const COMMAND_LANGUAGES: [RegExp, string][] = [
  [/\b(?:pip3?|pipx|poetry|conda)\s+(?:install|add)\b|\buv\s+(?:add|pip)\b/, "Python"],
  [/\bcargo\s+(?:install|add)\b/, "Rust"],
  [/\bgo\s+(?:install|get)\b/, "Go"],
  [/\b(?:gem\s+install|bundle\s+add)\b/, "Ruby"],
  [/\bcomposer\s+(?:global\s+)?require\b/, "PHP"],
];

/** The language of the README's code samples, else of an unambiguous install command; null when unclear. */
export function sampleLanguage(facts: InstallFacts, allBlocks: Block[]): string | null {
  const fromCode = [...facts.samples, ...allBlocks.filter((block): block is Code => block.type === "code")].map((block) => FENCE_LANGUAGES[block.lang]).find(Boolean);
  if (fromCode) return fromCode;
  const commands = facts.install.join("\n");
  return COMMAND_LANGUAGES.find(([pattern]) => pattern.test(commands))?.[1] ?? null;
}
