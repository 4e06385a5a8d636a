import type { CorpusExpectation } from "./types.js";

/** The parts of `GET …/repo-check`'s answer the corpus judges. */
export interface RepoCheckAnswer {
  dockerfile: boolean;
  dockerfile_found?: { path: string };
  analysis: { expose: number[]; command: string | null; kind: string; warnings: string[] } | null;
  auto: { found: true; name: string; start?: string; output?: string; dockerfile: string; warnings: string[] } | { found: false; reason: string };
  setup: { vars: Array<{ name: string; required: boolean }> };
}

/** Whether an answer matches the expectation, and each difference when it does not. */
export interface CorpusVerdict {
  right: boolean;
  differences: string[];
}

/**
 * Compares a repo-check answer with what a careful engineer expects. Only the fields the
 * expectation gives are compared, so an entry says exactly what matters for its repository.
 */
export function judgeRepoCheck(answer: RepoCheckAnswer, expected: CorpusExpectation, askedDockerfile = "Dockerfile"): CorpusVerdict {
  const differences: string[] = [];
  const differ = (what: string, wanted: unknown, got: unknown) => differences.push(`${what}: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(got)}`);

  const builtDockerfile = answer.dockerfile ? askedDockerfile : (answer.dockerfile_found?.path ?? null);
  const mode = builtDockerfile ? "dockerfile" : answer.auto.found ? "auto" : "none";
  if (mode !== expected.mode) differ("mode", expected.mode, mode === "none" && !answer.auto.found ? `none (${answer.auto.reason})` : mode);
  if (expected.dockerfile !== undefined && builtDockerfile !== expected.dockerfile) differ("dockerfile", expected.dockerfile, builtDockerfile);

  const auto = answer.auto.found ? answer.auto : null;
  if (expected.port !== undefined) {
    const port = mode === "dockerfile" ? (answer.analysis?.expose[0] ?? null) : auto ? writtenPort(auto.dockerfile) : null;
    if (port !== expected.port) differ("port", expected.port, port);
  }
  if (expected.mode === "auto" && auto) {
    const serves = auto.output !== undefined ? "static" : "server";
    if (expected.serves !== undefined && serves !== expected.serves) differ("serves", expected.serves, `${serves} (${auto.output ?? auto.start})`);
    if (expected.start !== undefined && auto.start !== expected.start) differ("start", expected.start, auto.start);
    for (const word of expected.start_includes ?? []) if (!auto.start?.includes(word)) differ("start includes", word, auto.start);
    for (const word of expected.start_excludes ?? []) if (auto.start?.includes(word)) differ("start excludes", word, auto.start);
    if (expected.output !== undefined && auto.output !== expected.output) differ("output", expected.output, auto.output);
    if (expected.name_includes !== undefined && !auto.name.toLowerCase().includes(expected.name_includes.toLowerCase())) differ("name", expected.name_includes, auto.name);
    const lines = auto.dockerfile.split("\n").map((line) => line.trim());
    for (const line of expected.dockerfile_includes ?? []) if (!lines.includes(line)) differ("Dockerfile line", line, "(missing)");
  }
  if (expected.reason_includes && !answer.auto.found) {
    const { reason } = answer.auto;
    for (const word of expected.reason_includes) if (!reason.includes(word)) differ("reason includes", word, reason);
  }
  const warnings = [...(answer.analysis?.warnings ?? []), ...(auto?.warnings ?? [])];
  for (const word of expected.warnings_include ?? []) if (!warnings.some((warning) => warning.includes(word))) differ("warning", word, warnings);

  const vars = new Map(answer.setup.vars.map((variable) => [variable.name, variable.required]));
  for (const name of expected.vars?.required ?? []) if (vars.get(name) !== true) differ(`var ${name}`, "required", vars.has(name) ? "optional" : "absent");
  for (const name of expected.vars?.optional ?? []) if (vars.get(name) !== false) differ(`var ${name}`, "optional", vars.has(name) ? "required" : "absent");
  for (const name of expected.vars?.absent ?? []) if (vars.has(name)) differ(`var ${name}`, "absent", vars.get(name) ? "required" : "optional");

  return { right: differences.length === 0, differences };
}

/** The first `EXPOSE` of a written Dockerfile's final stage. */
function writtenPort(dockerfile: string): number | null {
  const finalStage = dockerfile.split(/^FROM /m).pop() ?? "";
  const port = /^EXPOSE\s+(\d+)/m.exec(finalStage)?.[1];
  return port ? Number(port) : null;
}
