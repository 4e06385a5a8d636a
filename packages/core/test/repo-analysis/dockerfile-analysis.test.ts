import { describe, expect, it } from "vitest";
import { analyzeDockerfile, shellQuote } from "../../src/repo-analysis/dockerfile-analysis.js";
import { expandWord, parseDockerfile } from "../../src/repo-analysis/dockerfile-parser.js";
import { readDockerfileSyntax } from "../../src/repo-analysis/formats/dockerfile.js";
import type { DockerfileAnalysis } from "../../src/repo-analysis/repo-check.js";

const lines = (...text: string[]) => text.join("\n");

const cases: Array<{ name: string; dockerfile: string; expected: DockerfileAnalysis }> = [
  {
    name: "single-stage node",
    dockerfile: lines(
      "FROM node:22-bookworm-slim",
      "WORKDIR /app",
      "COPY package*.json ./",
      "RUN npm ci --omit=dev",
      "COPY . .",
      "EXPOSE 3000",
      'CMD ["node", "server.js"]'
    ),
    expected: { expose: [3000], command: "node server.js", kind: "web", warnings: [] },
  },
  {
    name: "multi-stage node: only the final stage counts",
    dockerfile: lines(
      "FROM node:22 AS build",
      "WORKDIR /app",
      "COPY . .",
      "RUN npm ci && npm run build",
      "EXPOSE 5173",
      'CMD ["npm", "run", "dev"]',
      "",
      "FROM node:22-slim AS runtime",
      "WORKDIR /app",
      "COPY --from=build /app/dist ./dist",
      "ENV NODE_ENV=production",
      "EXPOSE 8080",
      'CMD ["node", "dist/index.js"]'
    ),
    expected: { expose: [8080], command: "node dist/index.js", kind: "web", warnings: [] },
  },
  {
    name: "python with gunicorn and no EXPOSE",
    dockerfile: lines(
      "FROM python:3.12-slim",
      "WORKDIR /srv",
      "COPY requirements.txt .",
      "RUN pip install --no-cache-dir -r requirements.txt",
      "COPY . .",
      'CMD ["gunicorn", "--bind", "0.0.0.0:8000", "app.wsgi:application"]'
    ),
    expected: { expose: [], command: "gunicorn --bind 0.0.0.0:8000 app.wsgi:application", kind: "web", warnings: [] },
  },
  {
    name: "EXPOSE from ARG and ENV with a default",
    dockerfile: lines(
      "ARG NODE_VERSION=20",
      "FROM node:${NODE_VERSION}-alpine",
      "ARG APP_PORT",
      "ENV PORT=${APP_PORT:-8080}",
      "EXPOSE ${PORT}",
      "EXPOSE ${METRICS_PORT:-9100}/tcp",
      'CMD ["node", "index.js"]'
    ),
    expected: { expose: [8080, 9100], command: "node index.js", kind: "web", warnings: [] },
  },
  {
    name: "shell-form CMD is shown as written",
    dockerfile: lines("FROM ruby:3.3", "EXPOSE 3000", "CMD bundle exec rails server -b 0.0.0.0 -p $PORT"),
    expected: { expose: [3000], command: "bundle exec rails server -b 0.0.0.0 -p $PORT", kind: "web", warnings: [] },
  },
  {
    name: "exec ENTRYPOINT gets exec CMD appended",
    dockerfile: lines(
      "FROM python:3.12-slim",
      'ENTRYPOINT ["uvicorn", "main:app"]',
      'CMD ["--host", "0.0.0.0", "--port", "8000"]',
      "EXPOSE 8000"
    ),
    expected: { expose: [8000], command: "uvicorn main:app --host 0.0.0.0 --port 8000", kind: "web", warnings: [] },
  },
  {
    name: "exec ENTRYPOINT with a shell-form CMD runs it through /bin/sh -c",
    dockerfile: lines("FROM node:22", 'ENTRYPOINT ["docker-entrypoint.sh"]', "CMD npm start", "EXPOSE 3000"),
    expected: { expose: [3000], command: "docker-entrypoint.sh /bin/sh -c 'npm start'", kind: "web", warnings: [] },
  },
  {
    name: "shell-form ENTRYPOINT ignores CMD",
    dockerfile: lines("FROM alpine:3.20", "ENTRYPOINT exec /usr/local/bin/app --serve-http", 'CMD ["--ignored"]', "EXPOSE 8080"),
    expected: { expose: [8080], command: "exec /usr/local/bin/app --serve-http", kind: "web", warnings: [] },
  },
  {
    name: "FROM <stage> inherits EXPOSE, CMD and ENV",
    dockerfile: lines(
      "FROM node:22-slim AS base",
      "ENV PORT=4000",
      "EXPOSE $PORT",
      'CMD ["node", "server.js"]',
      "",
      "FROM base AS deps",
      "RUN npm ci",
      "",
      "FROM deps AS release",
      "COPY . ."
    ),
    expected: { expose: [4000], command: "node server.js", kind: "web", warnings: [] },
  },
  {
    name: "a CLI tool image",
    dockerfile: lines(
      "FROM golang:1.23 AS build",
      "WORKDIR /src",
      "COPY . .",
      "RUN CGO_ENABLED=0 go build -o /out/mytool ./cmd/mytool",
      "FROM gcr.io/distroless/static-debian12",
      "COPY --from=build /out/mytool /usr/local/bin/mytool",
      'ENTRYPOINT ["mytool"]'
    ),
    expected: { expose: [], command: "mytool", kind: "cli", warnings: ["not-a-server"] },
  },
  {
    name: "line continuations and comments inside them",
    dockerfile: lines(
      "FROM debian:bookworm-slim",
      "RUN apt-get update \\",
      "    # a comment inside the continuation is dropped",
      "    && apt-get install -y curl \\",
      "",
      "    && rm -rf /var/lib/apt/lists/*",
      "EXPOSE 80 \\",
      "       443",
      'CMD ["/usr/sbin/lighttpd", \\',
      '     "-D", "-f", "/etc/lighttpd/lighttpd.conf"]'
    ),
    expected: { expose: [80, 443], command: "/usr/sbin/lighttpd -D -f /etc/lighttpd/lighttpd.conf", kind: "web", warnings: [] },
  },
  {
    name: "escape directive with a backtick (Windows paths keep their backslashes)",
    dockerfile: lines(
      "# escape=`",
      "FROM mcr.microsoft.com/windows/servercore:ltsc2022",
      "WORKDIR C:\\app",
      "COPY . C:\\app\\",
      "EXPOSE `",
      "  5000",
      'CMD ["C:\\\\app\\\\server.exe", "--urls", "http://0.0.0.0:5000"]'
    ),
    expected: { expose: [5000], command: "'C:\\app\\server.exe' --urls http://0.0.0.0:5000", kind: "web", warnings: [] },
  },
  {
    name: "comments and indentation",
    dockerfile: lines(
      "# syntax=docker/dockerfile:1",
      "# The app image",
      "  FROM node:22  # not a comment: part of the FROM line",
      "",
      "    # EXPOSE 9999 is commented out",
      "  expose 3000",
      '  cmd ["npm", "start"]'
    ),
    expected: { expose: [3000], command: "npm start", kind: "web", warnings: [] },
  },
  {
    name: "udp ports stay out of expose",
    dockerfile: lines("FROM alpine", "EXPOSE 53/udp 8053/tcp 9000/udp", 'CMD ["dnsd"]'),
    expected: { expose: [8053], command: "dnsd", kind: "web", warnings: ["udp-ports-ignored"] },
  },
  {
    name: "udp only: not a server",
    dockerfile: lines("FROM alpine", "EXPOSE 51820/udp", 'ENTRYPOINT ["wg-quick", "up", "wg0"]'),
    expected: { expose: [], command: "wg-quick up wg0", kind: "cli", warnings: ["not-a-server", "udp-ports-ignored"] },
  },
  {
    name: "duplicate ports are listed once, in order",
    dockerfile: lines("FROM node:22", "EXPOSE 8080", "EXPOSE 3000 8080/tcp", "EXPOSE 3000"),
    // No CMD: the container would start node's bare REPL (see the no-cmd case below).
    expected: { expose: [8080, 3000], command: "node", kind: "web", warnings: ["no-cmd"] },
  },
  {
    name: "no CMD on a language base image: the bare interpreter is flagged (no-cmd)",
    dockerfile: lines("FROM node:alpine", "WORKDIR /usr/src/node-app", "COPY . .", "EXPOSE 3000"),
    expected: { expose: [3000], command: "node", kind: "web", warnings: ["no-cmd"] },
  },
  {
    name: "an ENTRYPOINT that is the program needs no CMD",
    dockerfile: lines("FROM scratch", 'ENTRYPOINT ["/whoami"]', "EXPOSE 80"),
    expected: { expose: [80], command: "/whoami", kind: "web", warnings: [] },
  },
  {
    name: "a static site on nginx relies on the base image's port and command",
    dockerfile: lines(
      "FROM node:22 AS build",
      "WORKDIR /app",
      "COPY . .",
      "RUN npm ci && npm run build",
      "FROM nginx:1.27-alpine",
      "COPY --from=build /app/dist /usr/share/nginx/html"
    ),
    expected: { expose: [80], command: "nginx -g 'daemon off;'", kind: "web", warnings: [] },
  },
  {
    name: "ENTRYPOINT resets a CMD inherited from the base image",
    dockerfile: lines("FROM nginx:alpine", 'ENTRYPOINT ["/bin/echo", "hello"]'),
    expected: { expose: [80], command: "/bin/echo hello", kind: "web", warnings: [] },
  },
  {
    name: "ENTRYPOINT keeps a CMD set earlier in the same stage",
    dockerfile: lines("FROM python:3.12", 'CMD ["app.py"]', 'ENTRYPOINT ["python"]'),
    expected: { expose: [], command: "python app.py", kind: "cli", warnings: ["not-a-server"] },
  },
  {
    name: "EXPOSE $PORT with no value still means something listens",
    dockerfile: lines("FROM node:22", "EXPOSE $PORT", 'CMD ["node", "main.js"]'),
    expected: { expose: [], command: "node main.js", kind: "web", warnings: [] },
  },
  {
    name: "a known server command without EXPOSE",
    dockerfile: lines("FROM node:22", "RUN npm i -g serve", 'CMD ["serve", "-s", "dist", "-l", "tcp://0.0.0.0:3000"]'),
    expected: { expose: [], command: "serve -s dist -l tcp://0.0.0.0:3000", kind: "web", warnings: [] },
  },
  {
    name: "ENV PORT marks a server",
    dockerfile: lines("FROM node:22", "ENV PORT 8080", 'CMD ["node", "main.js"]'),
    expected: { expose: [], command: "node main.js", kind: "web", warnings: [] },
  },
  {
    name: "a batch job",
    dockerfile: lines("FROM python:3.12-slim", "COPY job.py .", 'CMD ["python", "job.py", "--once"]'),
    expected: { expose: [], command: "python job.py --once", kind: "cli", warnings: ["not-a-server"] },
  },
  {
    name: "no FROM at all",
    dockerfile: "# nothing here\n",
    expected: { expose: [], command: null, kind: "cli", warnings: ["not-a-server"] },
  },
  {
    name: "heredoc bodies are not read as instructions",
    dockerfile: lines(
      "# syntax=docker/dockerfile:1.7",
      "FROM alpine",
      "RUN <<EOF",
      "EXPOSE 1234",
      "echo hi",
      "EOF",
      "EXPOSE 8080",
      'CMD ["./server"]'
    ),
    expected: { expose: [8080], command: "./server", kind: "web", warnings: [] },
  },
];

describe("analyzeDockerfile", () => {
  it.each(cases)("$name", ({ dockerfile, expected }) => {
    expect(analyzeDockerfile(dockerfile)).toEqual(expected);
  });

  it("knows common server commands, and not plain programs", () => {
    const kindOf = (cmd: string) => analyzeDockerfile(`FROM x\nCMD ${cmd}`).kind;
    const servers = [
      "uvicorn main:app --host 0.0.0.0",
      "python manage.py runserver 0.0.0.0:8000",
      "python -m http.server 8000",
      "flask run --host=0.0.0.0",
      "npm start",
      "yarn run start",
      "pnpm start",
      "npx next start",
      "bundle exec rails s",
      "php artisan serve",
      "streamlit run app.py",
      "node .output/server/index.mjs",
      "httpd-foreground",
      "caddy run",
      "java -jar app.jar --port 9000",
      "./app -p 8080",
      'sh -c "./app --listen :$PORT"',
    ];
    const programs = ["node index.js", "python main.py", "redis-server", "mkdir -p /data && ./run", "./app --help"];
    expect(servers.map(kindOf)).toEqual(servers.map(() => "web"));
    expect(programs.map(kindOf)).toEqual(programs.map(() => "cli"));
  });
});

describe("parseDockerfile", () => {
  it("keeps global ARGs for FROM lines and for stages that declare them again", () => {
    const parsed = parseDockerfile(
      lines(
        "ARG BASE=node:22",
        "ARG PORT=5000",
        "FROM ${BASE} AS app",
        "ARG PORT",
        "ARG OTHER",
        "ENV LISTEN=$PORT UNSET=${OTHER:-none}",
        "FROM ${BASE}",
        "ENV SEEN=${PORT:-not-declared}"
      )
    );
    expect(parsed.globalArgs).toEqual({ BASE: "node:22", PORT: "5000" });
    expect(parsed.stages.map((stage) => [stage.from, stage.name, stage.parent, stage.env])).toEqual([
      ["node:22", "app", null, { LISTEN: "5000", UNSET: "none" }],
      ["node:22", null, null, { SEEN: "not-declared" }],
    ]);
    expect(parsed.stages[0]!.args).toEqual({ PORT: "5000", OTHER: undefined });
  });

  it("reads ENV in both forms; values on one line see the environment before it", () => {
    const [stage] = parseDockerfile(
      lines(
        "FROM alpine",
        "ENV A=1",
        'ENV A=2 B=$A C="quoted value" D=a\\ b',
        "ENV PATH /usr/local/bin:$PATH with spaces",
        "ARG A=from-arg",
        "ENV E=${A}"
      )
    ).stages;
    expect(stage!.env).toEqual({ A: "2", B: "1", C: "quoted value", D: "a b", PATH: "/usr/local/bin: with spaces", E: "2" });
  });

  it("substitutes the documented forms", () => {
    const vars: Record<string, string> = { SET: "value", EMPTY: "" };
    const lookup = (name: string) => vars[name];
    const expand = (word: string) => expandWord(word, lookup);
    expect(
      [
        "$SET",
        "${SET}",
        "${SET:-default}",
        "${EMPTY:-default}",
        "${EMPTY-default}",
        "${MISSING-default}",
        "${SET:+alt}",
        "${EMPTY:+alt}",
        "${EMPTY+alt}",
        "${MISSING:-${SET}-nested}",
        "'$SET'",
        '"$SET and ${SET}"',
        "\\$SET",
        "pre-${SET}-post",
        "$",
      ].map(expand)
    ).toEqual([
      "value",
      "value",
      "value",
      "default",
      "",
      "default",
      "alt",
      "",
      "alt",
      "value-nested",
      "$SET",
      "value and value",
      "$SET",
      "pre-value-post",
      "$",
    ]);
  });

  it("joins continuations and reads the escape directive", () => {
    expect(readDockerfileSyntax("# escape=`\nFROM a\nRUN echo one `\n  two\n").instructions).toMatchObject([
      { keyword: "FROM", args: "a", line: 2 },
      { keyword: "RUN", args: "echo one   two", line: 3 },
    ]);
    // A directive after a comment is only a comment: the backslash stays the escape character.
    expect(readDockerfileSyntax("# hello\n# escape=`\nFROM a\nRUN x \\\n y").escape).toBe("\\");
  });

  it("records ports with their protocol and ranges, and what did not resolve", () => {
    const [stage] = parseDockerfile("FROM a\nEXPOSE 80 7000-7010/tcp 53/udp $NOPE bogus").stages;
    expect(stage!.expose).toEqual([
      { port: 80, protocol: "tcp" },
      { port: 7000, protocol: "tcp", end: 7010 },
      { port: 53, protocol: "udp" },
    ]);
    expect(stage!.unresolvedExpose).toEqual(["$NOPE", "bogus"]);
  });

  it("reads VOLUME, WORKDIR, SHELL and HEALTHCHECK", () => {
    const [stage] = parseDockerfile(
      lines(
        "FROM a",
        "ENV DATA=/data",
        'VOLUME ["/var/lib/app"]',
        "VOLUME $DATA /cache",
        "WORKDIR /srv",
        "WORKDIR app",
        'SHELL ["/bin/bash", "-lc"]',
        "HEALTHCHECK CMD curl -f http://localhost/ || exit 1"
      )
    ).stages;
    expect([stage!.volumes, stage!.workdir, stage!.shell, stage!.healthcheck]).toEqual([
      ["/var/lib/app", "/data", "/cache"],
      "/srv/app",
      ["/bin/bash", "-lc"],
      "CMD curl -f http://localhost/ || exit 1",
    ]);
  });
});

describe("shellQuote", () => {
  it("quotes only what needs it", () => {
    expect(["plain", "a b", "", "it's", "$HOME", "--flag=x"].map(shellQuote)).toEqual([
      "plain",
      "'a b'",
      "''",
      "'it'\\''s'",
      "'$HOME'",
      "--flag=x",
    ]);
  });
});
