import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { unreachableRegistry } from "../../src/hosting/diagnosis/unreachable-registry.js";

/** A captured output (fixtures/unreachable-registries/README.md says how each was made), as log lines. */
const output = (name: string) => readFileSync(new URL(`./fixtures/unreachable-registries/${name}.txt`, import.meta.url), "utf8").split("\n");

// What the real tools printed when the registry could not be reached: each names the registry and how the connection failed.
const CASES: [file: string, command: string, expected: { tool: string; host: string; failure: string; image?: string | null }][] = [
  ["npm-tls", "RUN npm install left-pad", { tool: "npm", host: "registry.npmjs.org", failure: "tls" }],
  ["npm-dns", "RUN npm install left-pad", { tool: "npm", host: "registry.npmjs.org", failure: "dns" }],
  ["npm-refused", "RUN npm install left-pad", { tool: "npm", host: "127.0.0.1", failure: "refused" }],
  ["corepack-pnpm-tls", "RUN corepack enable && pnpm -v", { tool: "corepack", host: "registry.npmjs.org", failure: "tls" }],
  ["corepack-yarn-dns", "RUN corepack enable && yarn install", { tool: "corepack", host: "repo.yarnpkg.com", failure: "dns" }],
  ["pnpm-tls", "RUN pnpm install", { tool: "pnpm", host: "registry.npmjs.org", failure: "tls" }],
  ["yarn-tls", "RUN yarn install", { tool: "yarn", host: "registry.yarnpkg.com", failure: "tls" }],
  ["bun-tls", "RUN bun install", { tool: "bun", host: "registry.npmjs.org", failure: "tls" }],
  ["bun-dns", "RUN bun install", { tool: "bun", host: "registry.npmjs.org", failure: "dns" }],
  ["bun-refused", "RUN bun install", { tool: "bun", host: "registry.npmjs.org", failure: "refused" }],
  ["pip-dns", "RUN pip install -r requirements.txt", { tool: "pip", host: "pypi.org", failure: "dns" }],
  ["pip-refused", "RUN pip install -r requirements.txt", { tool: "pip", host: "127.0.0.1", failure: "refused" }],
  ["go-dns", "RUN go mod download", { tool: "go", host: "proxy.golang.org", failure: "dns" }],
  ["go-tls", "RUN go mod download", { tool: "go", host: "registry.npmjs.org", failure: "tls" }],
  ["go-refused", "RUN go mod download", { tool: "go", host: "127.0.0.1", failure: "refused" }],
  ["cargo-dns", "RUN cargo build --release", { tool: "cargo", host: "index.crates.io", failure: "dns" }],
  ["cargo-tls", "RUN cargo build --release", { tool: "cargo", host: "registry.npmjs.org", failure: "tls" }],
  ["cargo-refused", "RUN cargo build --release", { tool: "cargo", host: "127.0.0.1", failure: "refused" }],
  ["image-classic", "FROM node:22-r22d-absent", { tool: "image", host: "registry-1.docker.io", failure: "dns", image: null }],
  ["image-buildkit", "", { tool: "image", host: "registry-1.docker.io", failure: "dns", image: "node:22-r22d-absent" }],
];

describe("a registry the build could not reach, from the tools' real output", () => {
  it.each(CASES)("%s", (file, command, expected) => {
    expect(unreachableRegistry(output(file), "", command || null)).toMatchObject(expected);
  });

  it("reads BuildKit's step lines (`#7 …`) as the tool printed them", () => {
    const prefixed = output("npm-tls").map((line) => `#7 ${line}`);
    expect(unreachableRegistry(prefixed, 'executor failed running [/bin/sh -c npm ci]: exit code: 1', "RUN npm ci")).toMatchObject({ tool: "npm", failure: "tls" });
  });

  it("finds the pull in the builder's message alone", () => {
    const [message] = output("image-buildkit").slice(-2);
    expect(unreachableRegistry([], message!)).toMatchObject({ tool: "image", image: "node:22-r22d-absent", failure: "dns" });
  });

  it("a build script's own request to the app's server is not a registry (a fetch error in `npm run build`)", () => {
    const output = ["> build", "> node fetch-content.js", "FetchError: request to https://cms.example.internal/api/pages failed, reason: getaddrinfo ENOTFOUND cms.example.internal"];
    expect(unreachableRegistry(output, "", "RUN npm run build")).toBeNull();
    expect(unreachableRegistry(output.map((line) => line.replace("cms.example.internal", "registry.npmjs.org")), "", "RUN npm run build")).toMatchObject({ host: "registry.npmjs.org" });
    const python = ["requests.exceptions.ConnectionError: HTTPSConnectionPool(host='media.example.internal', port=443): Max retries exceeded with url: /x (Caused by NameResolutionError(\"Failed to resolve 'media.example.internal'\"))"];
    expect(unreachableRegistry(python, "", "RUN python manage.py collectstatic --noinput")).toBeNull();
    expect(unreachableRegistry(python, "", "RUN pip install -r requirements.txt")).toMatchObject({ tool: "pip", host: "media.example.internal", failure: "dns" });
  });

  it.each([
    ["not-network-npm-e404", "RUN npm install"],
    ["not-network-pip-missing", "RUN pip install -r requirements.txt"],
    ["not-network-app-test", "RUN npm test"],
  ])("%s: a package that does not exist, or an app's own request, is not a registry out of reach", (file, command) => {
    expect(unreachableRegistry(output(file), "", command)).toBeNull();
  });
});
