import type { DeploymentSetup } from "../deployment-setup.js";
import type { Diagnosis } from "../diagnosis/diagnosis.js";

/** How much of the failed run's log the model reads: its last lines, each cut. */
export const PROMPT_LOG_LINES = 80;
const PROMPT_LOG_LINE_CHARS = 400;
const PROMPT_FILES = 200;
const PROMPT_PACKAGE_JSON_CHARS = 4_000;
const PROMPT_DOCKERFILE_CHARS = 20_000;

/** Everything the model reads about one failure. Never env values: the names only. */
export interface FixMaterial {
  attempt: number;
  attempts: number;
  setup: DeploymentSetup;
  /** The Dockerfile that failed, or null when there was none. */
  dockerfile: string | null;
  /** Where it came from, in words. */
  origin: string;
  diagnosis: Diagnosis | null;
  /** The run's `reason` (already masked by the pipeline). */
  reason: string | null;
  /** The run's last log lines (already masked by the pipeline). */
  logTail: string[];
  envNames: string[];
  /** The repository's file paths. */
  files: readonly string[];
  /** The repository's package.json, when it has one. */
  packageJson: string | null;
  /** One line per earlier attempt of this fix: what it tried and how it failed. */
  earlier: string[];
}

export const FIX_SYSTEM_PROMPT = [
  "You fix Dockerfiles of web apps that failed to build or start on a hosting service.",
  "You get the Dockerfile that failed, the service's diagnosis, the end of the build and start log, the app's setup and the repository's file list.",
  "Write the whole corrected Dockerfile.",
  "",
  "How the service builds and runs it:",
  "- The build context is the repository's root (every file listed), whatever path the Dockerfile had; COPY paths are relative to it.",
  "- Files under .reposite/ are not in the context: do not COPY them.",
  "- The container gets PORT (the setup's port) in its environment and must answer HTTP on that port, on 0.0.0.0 (every address), not 127.0.0.1.",
  "- The health path must answer a 2xx or 3xx status within a minute of the start (a 404 does not count).",
  "- There is a start command (CMD or ENTRYPOINT) in the final stage.",
  "- Env values are set at run time by the service; never write secrets or values of env names into the Dockerfile.",
  "",
  "Change only what the failure needs; keep the base images unless they are the problem.",
  "Answer with the Dockerfile alone in one fenced block (```dockerfile … ```), nothing before or after it.",
].join("\n");

/** The task for one attempt: the failing Dockerfile, the diagnosis, the log tail, the setup and the repository's files. */
export function fixPrompt(material: FixMaterial): string {
  const { setup, diagnosis } = material;
  const sections: string[] = [];
  sections.push(`Fix attempt ${material.attempt} of ${material.attempts}.`);
  sections.push(
    section("The app's setup", [
      `build_mode: ${setup.build_mode}`,
      ...(setup.build_mode === "dockerfile" ? [`dockerfile_path: ${setup.dockerfile_path}`] : []),
      `port (given as PORT): ${setup.port}`,
      `health_path: ${setup.health_path}`,
      `volume_path: ${setup.volume_path ?? "(none)"}`,
      `env names set (values withheld): ${material.envNames.length ? material.envNames.join(", ") : "(none)"}`,
    ].join("\n")),
  );
  sections.push(
    section(
      `The Dockerfile that failed (${material.origin})`,
      material.dockerfile === null ? "(there is none: write one for this repository)" : fenced("dockerfile", cut(material.dockerfile, PROMPT_DOCKERFILE_CHARS)),
    ),
  );
  sections.push(section("What failed", diagnosisText(diagnosis, material.reason)));
  const tail = material.logTail.slice(-PROMPT_LOG_LINES).map((line) => cut(line, PROMPT_LOG_LINE_CHARS));
  sections.push(section(`The end of the build and start log (last ${tail.length} lines)`, tail.length ? fenced("text", tail.join("\n")) : "(empty)"));
  if (material.earlier.length) sections.push(section("Earlier attempts of this fix (they failed too)", material.earlier.map((line) => `- ${line}`).join("\n")));
  const files = material.files.slice(0, PROMPT_FILES);
  const more = material.files.length - files.length;
  sections.push(section("The repository's files", `${files.join("\n")}${more > 0 ? `\n… and ${more} more` : ""}`));
  if (material.packageJson !== null) sections.push(section("package.json", fenced("json", cut(material.packageJson, PROMPT_PACKAGE_JSON_CHARS))));
  sections.push("Write the corrected Dockerfile.");
  return sections.join("\n\n");
}

function diagnosisText(diagnosis: Diagnosis | null, reason: string | null): string {
  const lines: string[] = [];
  if (diagnosis) {
    lines.push(`kind: ${diagnosis.kind}`, `title: ${diagnosis.title}`, `detail: ${diagnosis.detail}`, `suggested fix: ${diagnosis.fix}`);
    if (diagnosis.limit) lines.push(`limit: ${diagnosis.limit.kind}, ${diagnosis.limit.needed} MB needed`);
    const evidence = diagnosis.evidence ?? {};
    if (evidence.dockerfile_line !== undefined) lines.push(`failed at Dockerfile line ${evidence.dockerfile_line}${evidence.step ? `: ${evidence.step}` : ""}`);
    else if (evidence.step) lines.push(`failed step: ${evidence.step}`);
    if (evidence.exit_code !== undefined) lines.push(`exit code: ${evidence.exit_code}`);
    if (evidence.listening?.length) lines.push(`listening inside the container: ${evidence.listening.map((socket) => `${socket.address}:${socket.port}`).join(", ")}`);
    else if (evidence.listening) lines.push("listening inside the container: nothing");
    if (evidence.start_command?.length) lines.push(`start command found in the repository: ${evidence.start_command.join(" ")}`);
    if (evidence.peak_memory_mb !== undefined) lines.push(`peak memory: ${evidence.peak_memory_mb} MB`);
    // The build cannot reach that registry: a fix can only do without the download, never fetch from elsewhere.
    if (evidence.registry) {
      lines.push(
        `registry out of reach: ${evidence.registry} (${evidence.network_error ?? "network error"})${evidence.image ? `, pulling the base image ${evidence.image}` : ""}; ` +
          "builds on this server cannot download from it, so change the Dockerfile only to do without that download (files the repository has, a base image the Dockerfile already uses); never add a download from another address",
      );
    }
  }
  if (reason) lines.push(`the run's reason: ${reason}`);
  return lines.length ? lines.join("\n") : "(no diagnosis)";
}

const section = (title: string, body: string) => `## ${title}\n${body}`;

/** A fenced block whose fence is longer than any backtick run inside, so the text cannot close it. */
function fenced(info: string, text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${info}\n${text}\n${fence}`;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)} … (cut)` : text;
}
