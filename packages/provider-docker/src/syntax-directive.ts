/**
 * A `# syntax=<image>` parser directive asks BuildKit to pull that image and build with it instead
 * of its built-in Dockerfile frontend. Reposite's builds must not depend on a registry (none may
 * be reachable), and the built-in frontend of the Engine reads what such Dockerfiles use
 * (`RUN --mount`, `FROM --platform`, heredocs excepted on older Engines): the directive is turned
 * into a plain comment, on the same line so line numbers stay right, and the build log says so.
 */
export function ignoreSyntaxDirective(text: string): { text: string; image: string | null } {
  const lines = text.split("\n");
  for (let at = 0; at < lines.length; at++) {
    const directive = /^\uFEFF?\s*#\s*([a-zA-Z][a-zA-Z0-9]*)\s*=\s*(.*?)\s*$/.exec(lines[at]!);
    // Parser directives come first, before any other line, blank or comment.
    if (!directive) break;
    if (directive[1]!.toLowerCase() !== "syntax") continue;
    lines[at] = `# (syntax directive ignored by Reposite: ${directive[2]})`;
    return { text: lines.join("\n"), image: directive[2]! };
  }
  return { text, image: null };
}
