import type { BaseImages } from "../../repo-analysis/repo-check.js";
import type { FailedStep } from "./build-step.js";
import type { Diagnosis } from "./diagnosis.js";
import type { DockerfileFacts } from "./dockerfile-facts.js";
import { dockerfileSteps } from "./dockerfile-steps.js";
import { FAILURE_WORDS } from "./network-failure.js";
import { registryName } from "./registries.js";
import type { UnreachableRegistry } from "./unreachable-registry.js";
import { withOutput } from "./wording.js";

/** What is known of the failed build besides the registry: where it was, and the server's base images. */
export interface RegistryContext {
  step: FailedStep | null;
  /** `step 3 of 5 (line 7 of …: RUN npm ci)`, or null when no step of the Dockerfile ran. */
  where: string | null;
  dockerfile: DockerfileFacts | null;
  /** The operator's base images by name (`node` → `node:22-bookworm-slim`). */
  baseImages: Partial<BaseImages>;
  exitCode?: number;
}

/**
 * A build that failed because a registry could not be reached: the registry and how (DNS, TLS,
 * refused, timed out), that nothing in the repository is wrong, and what can be done: by the
 * server's operator (network access, a mirror, base images loaded onto the engine) and by the
 * app's owner in files the build reads (a mirror in `.npmrc`, vendored modules).
 */
export function registryDiagnosis(found: UnreachableRegistry, context: RegistryContext): Diagnosis {
  const { step } = context;
  const image = found.tool === "image" ? (found.image ?? fromImage(step)) : null;
  const line = step?.instruction?.line ?? (image ? fromLine(context.dockerfile, image) : null);
  const how = FAILURE_WORDS[found.failure];
  const registry = registryName(found.host);
  const what = image
    ? `The base image ${image} is not on this server, and pulling it from ${registry} failed: ${how.meaning}.`
    : `${capitalize(context.where ?? "a step of the build")} downloads from ${registry}, and the connection failed: ${how.meaning}. ` +
      "Nothing is wrong with the repository or the names of its packages: this server's builds cannot reach that registry.";
  return {
    kind: "registry_unreachable",
    title: `The build could not reach ${found.host} (${how.short})`,
    detail: withOutput(`${what} The error: ${found.line}`, "The step's last output:", step?.output ?? []),
    fix: image ? imageFix(image, found.host, context) : packageFix(found, context.dockerfile?.origin === "auto"),
    evidence: {
      ...(line !== null ? { dockerfile_line: line } : {}),
      ...(step ? { step: step.instruction?.text ?? step.text } : {}),
      ...(context.exitCode !== undefined ? { exit_code: context.exitCode } : {}),
      registry: found.host,
      network_error: found.failure,
      ...(image ? { image } : {}),
    },
  };
}

function imageFix(image: string, host: string, context: RegistryContext): string {
  const setting = Object.entries(context.baseImages).find(([, reference]) => typeof reference === "string" && sameImage(reference, image))?.[0];
  const auto = context.dockerfile?.origin === "auto";
  const load =
    `The server's operator can put it on the Docker Engine: \`docker pull ${image}\` and \`docker save -o image.tar ${image}\` on a machine that reaches ${host}, ` +
    `then \`docker load -i image.tar\` on this server` +
    (setting ? `, or set REPOSITE_BASE_IMAGE_${setting.toUpperCase()} to an image the engine has` : "") +
    ". `reposite admin images` lists the base images automatic builds use and whether each is on the engine.";
  if (auto) return `${load} The image comes from the server's settings, not from the repository: nothing in the repository needs to change. Then deploy again.`;
  return `${load} Or start the Dockerfile FROM an image this server has (its operator can say which). Then deploy again.`;
}

/** The mirror settings each tool reads, as files of the repository (which automatic builds copy in before installing) and as a Dockerfile `ENV`. */
const MIRRORS: Record<Exclude<UnreachableRegistry["tool"], "image">, { file: string; env: string }> = {
  npm: { file: "name a mirror of the npm registry in the repository's .npmrc (`registry=https://…`)", env: "ENV NPM_CONFIG_REGISTRY=https://…" },
  pnpm: { file: "name a mirror of the npm registry in the repository's .npmrc (`registry=https://…`)", env: "ENV NPM_CONFIG_REGISTRY=https://…" },
  yarn: {
    file: "name a mirror of the npm registry in the repository's .npmrc (`registry=https://…`, Yarn 1) or .yarnrc.yml (`npmRegistryServer: \"https://…\"`, Yarn 2 and later)",
    env: "ENV YARN_NPM_REGISTRY_SERVER=https://… (Yarn 2+) or ENV NPM_CONFIG_REGISTRY=https://… (Yarn 1)",
  },
  bun: { file: "name a mirror of the npm registry in the repository's bunfig.toml (`[install]` `registry = \"https://…\"`)", env: "ENV BUN_CONFIG_REGISTRY=https://…" },
  corepack: {
    file: "commit the package manager itself: `yarn set version` writes .yarn/releases/ and `yarnPath` in .yarnrc.yml, which automatic builds copy in, so Corepack downloads nothing for Yarn",
    env: "ENV COREPACK_NPM_REGISTRY=https://… (a mirror of the npm registry, where Corepack gets pnpm and Yarn)",
  },
  pip: {
    file: "name a mirror in requirements.txt (a first line `--index-url https://…/simple`), or in pyproject.toml for uv (`[[tool.uv.index]]`)",
    env: "ENV PIP_INDEX_URL=https://…/simple (UV_INDEX_URL for uv)",
  },
  go: { file: "vendor the modules (`go mod vendor`, then commit vendor/): a build with vendor/ downloads nothing", env: "ENV GOPROXY=https://… (a Go module mirror), or vendor the modules (`go mod vendor`)" },
  cargo: {
    file: "vendor the crates (`cargo vendor`, then commit vendor/ and the `.cargo/config.toml` lines it prints), or name a mirror in .cargo/config.toml (`[source.crates-io] replace-with`)",
    env: "vendor the crates (`cargo vendor`, with the `.cargo/config.toml` lines it prints), or name a mirror in .cargo/config.toml",
  },
  apt: { file: "", env: "start FROM an image that already has those packages, or name a mirror the build reaches in /etc/apt/sources.list" },
  apk: { file: "", env: "start FROM an image that already has those packages, or name a mirror the build reaches in /etc/apk/repositories" },
};

function packageFix(found: UnreachableRegistry, auto: boolean): string {
  const operator = `The server's operator has to let builds reach ${found.host}, or give them a mirror of it.`;
  const mirror = MIRRORS[found.tool as keyof typeof MIRRORS];
  if (auto) {
    // Corepack fetches pnpm itself before anything of the repository is read: no file of it helps.
    if (found.tool === "corepack" && /\/pnpm\b/.test(found.line)) {
      return `${operator} Corepack downloads pnpm itself (the version package.json's packageManager names) before installing, so nothing in the repository can avoid it. Then deploy again.`;
    }
    if (!mirror.file) return `${operator} The packages are installed in the server's base image for this kind of app (REPOSITE_BASE_IMAGE_*), which its operator chooses. Then deploy again.`;
    return `${operator} Meanwhile you can ${mirror.file}. Then deploy again.`;
  }
  return `${operator} In the Dockerfile you can ${mirror.env.startsWith("ENV ") ? `set \`${mirror.env}\` before that step` : mirror.env}${mirror.file ? `; or ${mirror.file}` : ""}. Then deploy again.`;
}

/** The image a failed `FROM` step names (the classic builder's pull failure names only the registry). */
function fromImage(step: FailedStep | null): string | null {
  const text = step?.instruction?.text ?? step?.text ?? "";
  if (!/^FROM\s/i.test(text)) return null;
  return text.split(/\s+/).slice(1).find((word) => !word.startsWith("--")) ?? null;
}

/** The line of the Dockerfile's `FROM` that names `image`. */
function fromLine(dockerfile: DockerfileFacts | null, image: string): number | null {
  if (!dockerfile?.text) return null;
  const from = dockerfileSteps(dockerfile.text).find((step) => step.keyword === "FROM" && step.text.split(/\s+/).some((word) => sameImage(word, image)));
  return from?.line ?? null;
}

/** `docker.io/library/node:22` and `node:22` are one image. */
function sameImage(a: string, b: string): boolean {
  const plain = (reference: string) => reference.toLowerCase().replace(/^docker\.io\//, "").replace(/^library\//, "");
  return plain(a) === plain(b);
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
