/** A model's answer longer than this is not a Dockerfile we build. */
export const MAX_FIXED_DOCKERFILE_CHARS = 64 * 1024;

/** The Dockerfile found in a model's answer, or why none could be used. */
export type DockerfileAnswer = { dockerfile: string } | { refused: string };

const INSTRUCTION = /^(FROM|RUN|CMD|LABEL|MAINTAINER|EXPOSE|ENV|ADD|COPY|ENTRYPOINT|VOLUME|USER|WORKDIR|ARG|ONBUILD|STOPSIGNAL|HEALTHCHECK|SHELL)\b/i;
const FROM_LINE = /^\s*FROM\s+\S/im;
const FENCE = /^[ \t]*(`{3,}|~{3,})[ \t]*([^\n`]*)\n([\s\S]*?)\n[ \t]*\1[ \t]*$/gm;

/**
 * Reads the Dockerfile out of what a model wrote, however it wrapped it: a fenced block (one marked
 * `dockerfile`/`docker` first, else the first one with a `FROM` line), or bare text from its first
 * instruction to its last, prose before and after left out. An answer with no `FROM` line is
 * refused: it would not build, and building it would only spend an attempt.
 */
export function dockerfileFromAnswer(answer: string): DockerfileAnswer {
  const text = answer.replace(/\r\n?/g, "\n");
  const blocks = [...text.matchAll(FENCE)].map((match) => ({ info: (match[2] ?? "").trim().toLowerCase(), body: match[3] ?? "" }));
  const marked = blocks.find((block) => /^(dockerfile|docker|containerfile)\b/.test(block.info) && FROM_LINE.test(block.body));
  const anyWithFrom = blocks.find((block) => FROM_LINE.test(block.body));
  let dockerfile = (marked ?? anyWithFrom)?.body ?? bareDockerfile(stripFences(text));
  dockerfile = dockerfile.replace(/\s+$/, "");
  if (!FROM_LINE.test(dockerfile)) {
    return { refused: "The model's answer has no Dockerfile in it (no FROM line), so nothing was built." };
  }
  if (dockerfile.length > MAX_FIXED_DOCKERFILE_CHARS) {
    return { refused: `The model's Dockerfile is longer than ${MAX_FIXED_DOCKERFILE_CHARS / 1024} KB, so nothing was built.` };
  }
  return { dockerfile: `${dockerfile}\n` };
}

/** Fence lines removed, their contents kept (an unterminated fence, for example). */
function stripFences(text: string): string {
  return text
    .split("\n")
    .filter((line) => !/^\s*(`{3,}|~{3,})/.test(line))
    .join("\n");
}

/**
 * Unfenced text: from the first line that starts a Dockerfile (a parser directive, a comment just
 * before `FROM`, `ARG` or `FROM`) to the last line that belongs to one (an instruction, a
 * continuation, a comment or a heredoc's body), so prose around it is dropped.
 */
function bareDockerfile(text: string): string {
  const lines = text.split("\n");
  const first = lines.findIndex((line) => /^\s*(FROM|ARG)\s+\S/i.test(line));
  if (first === -1) return "";
  let start = first;
  while (start > 0 && /^\s*#/.test(lines[start - 1]!)) start -= 1;
  let end = start;
  let continued = false;
  let heredoc: string | null = null;
  for (let index = start; index < lines.length; index += 1) {
    const line = lines[index]!;
    const trimmed = line.trim();
    if (heredoc !== null) {
      if (trimmed === heredoc) heredoc = null;
      end = index;
      continue;
    }
    if (continued || INSTRUCTION.test(trimmed) || trimmed.startsWith("#")) {
      end = index;
      continued = trimmed.endsWith("\\");
      heredoc = /<<-?\s*["']?(\w+)["']?/.exec(trimmed)?.[1] ?? null;
      continue;
    }
    // A blank line inside the Dockerfile is fine; prose ends it.
    if (trimmed !== "") break;
  }
  return lines.slice(start, end + 1).join("\n");
}
