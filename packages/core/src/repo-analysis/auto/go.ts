import type { SourceTree } from "../source-tree.js";
import { DockerfileWriter } from "./dockerfile-writer.js";
import { bindsLoopback, fixedListenPort } from "./listen-port.js";
import type { Detector } from "./types.js";

const BINARY = "/usr/local/bin/app";

/**
 * Go (`go.mod`, or a root `main.go`): a static binary (`CGO_ENABLED=0`) of the root package when it
 * is `package main`, else of the first `cmd/<name>` (alphabetically). As Railpack does, the runtime
 * image keeps the built tree as the working directory (`/app`), so the templates, static files and
 * configuration the program opens by relative path are there; the binary and the CA certificates
 * come from the build stage. A Procfile's `web:` command is not used: it names Heroku's binary.
 */
export const goDetector: Detector = {
  family: "go",
  detect({ tree, images }) {
    const module = tree.has("go.mod");
    if (!module && !tree.has("main.go")) return null;
    const target = buildTarget(tree);
    if (!target) {
      return {
        reason: "This Go module has no main package (a main.go at the root or in cmd/<name>/), so Reposite cannot tell what to build. Add one, or add a Dockerfile.",
      };
    }
    const vendored = tree.has("vendor/modules.txt");
    const install = module && !vendored ? "go mod download" : null;
    const build = `go build -trimpath -ldflags="-s -w" -o /out/app ${target}`;
    const warnings: string[] = [];
    const sources = goSources(tree);
    const port = fixedListenPort(sources, /Getenv\(\s*"PORT"\s*\)|LookupEnv\(\s*"PORT"\s*\)|env:"PORT"/) ?? 3000;
    if (port !== 3000) warnings.push(`The program listens on port ${port} and does not read PORT: set the setup's port to ${port}.`);
    if (bindsLoopback(sources)) warnings.push("The program listens on 127.0.0.1 only, which a container does not expose: listen on \":\" + os.Getenv(\"PORT\") instead.");

    const dockerfile = new DockerfileWriter();
    const wanted = goVersion(tree.read("go.mod") ?? "");
    if (wanted) {
      const provided = /golang:(\d+\.\d+)/.exec(images.go)?.[1];
      if (provided && compareVersions(wanted, provided) > 0) {
        warnings.push(`go.mod asks for Go ${wanted}, newer than the build image ${images.go}; the build downloads that toolchain (GOTOOLCHAIN) or fails without network.`);
      } else {
        dockerfile.comment(`go.mod asks for Go ${wanted}; the build image is ${images.go}.`);
      }
    }
    for (const warning of warnings) dockerfile.comment(`Warning: ${warning}`);
    dockerfile.from(images.go, "build").workdir("/src").env({ CGO_ENABLED: "0" });
    if (install) dockerfile.copy(tree.has("go.sum") ? ["go.mod", "go.sum"] : ["go.mod"], "./").run(install);
    dockerfile
      .copy(".", ".")
      .run(build)
      .from(images.runtime)
      .copy("/etc/ssl/certs/ca-certificates.crt", "/etc/ssl/certs/ca-certificates.crt", { from: "build" })
      .workdir("/app")
      // The built tree: what the program reads at run time by relative path (templates/, static/).
      .copy("/src", "/app", { from: "build" })
      .copy("/out/app", BINARY, { from: "build" })
      .env({ PORT: "3000", ...(/github\.com\/gin-gonic\/gin/.test(tree.read("go.mod") ?? "") ? { GIN_MODE: "release" } : {}) })
      .user("10001:10001")
      .expose(port)
      .cmd([BINARY]);
    return { name: goName(tree), install, build, start: BINARY, dockerfile: dockerfile.toString(), warnings };
  },
};

/** `Go (Gin)`, `Go (Fiber)`… from go.mod's requirements. */
function goName(tree: SourceTree): string {
  const goMod = tree.read("go.mod") ?? "";
  const framework = [
    ["github.com/gin-gonic/gin", "Gin"],
    ["github.com/gofiber/fiber", "Fiber"],
    ["github.com/labstack/echo", "Echo"],
    ["github.com/go-chi/chi", "chi"],
  ].find(([module]) => goMod.includes(module!));
  return framework ? `Go (${framework[1]})` : "Go";
}

function goSources(tree: SourceTree): string[] {
  return tree
    .paths()
    .filter((path) => path.endsWith(".go") && !path.endsWith("_test.go") && !path.startsWith("vendor/"))
    .slice(0, 200)
    .map((path) => tree.read(path) ?? "");
}

/** `.` when the root package is main, else `./cmd/<first>` holding a main package, else null. */
function buildTarget(tree: SourceTree): string | null {
  if (isMainPackage(tree, "")) return tree.has("go.mod") ? "." : "main.go";
  const commands = [...new Set(tree.paths().map((path) => /^cmd\/([^/]+)\/[^/]+\.go$/.exec(path)?.[1]).filter((name): name is string => Boolean(name)))].sort();
  const command = commands.find((name) => isMainPackage(tree, `cmd/${name}/`));
  return command ? `./cmd/${command}` : null;
}

function isMainPackage(tree: SourceTree, folder: string): boolean {
  return tree
    .paths()
    .filter((path) => path.startsWith(folder) && !path.slice(folder.length).includes("/") && path.endsWith(".go") && !path.endsWith("_test.go"))
    .some((path) => /^\s*package\s+main\b/m.test(tree.read(path) ?? ""));
}

/** The `go` directive of go.mod (`go 1.22.1` → `1.22.1`). */
function goVersion(goMod: string): string | null {
  return /^go\s+(\d+(?:\.\d+){0,2})\s*$/m.exec(goMod)?.[1] ?? null;
}

function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((version) => version.split(".").map(Number));
  for (let i = 0; i < 2; i++) {
    const difference = (x?.[i] ?? 0) - (y?.[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
