/**
 * A small builder for tidy Dockerfile text: one instruction per line, a blank line between stages,
 * exec-form `CMD` by default. Only instructions the classic builder understands are written (no
 * `RUN --mount`, no heredocs, no `# syntax=` line, which would pull a frontend image), so the
 * result builds on any Docker engine without reaching a registry beyond its base images.
 */
export class DockerfileWriter {
  private readonly lines: string[] = [];

  /** `# text`, one comment line per line of text. */
  comment(text: string): this {
    for (const line of text.split("\n")) this.lines.push(`# ${line}`.trimEnd());
    return this;
  }

  /** Starts a stage; every stage after the first is preceded by a blank line. */
  from(image: string, stage?: string): this {
    if (this.lines.some((line) => line.startsWith("FROM "))) this.lines.push("");
    this.lines.push(`FROM ${image}${stage ? ` AS ${stage}` : ""}`);
    return this;
  }

  workdir(path: string): this {
    this.lines.push(`WORKDIR ${path}`);
    return this;
  }

  /** One `ENV` line per variable, in the order given; values with spaces or quotes are quoted. */
  env(vars: Record<string, string>): this {
    for (const [key, value] of Object.entries(vars)) this.lines.push(`ENV ${key}=${envValue(value)}`);
    return this;
  }

  /** `COPY [--from=…] [--chown=…] <sources…> <destination>`. */
  copy(sources: string | string[], destination: string, options: { from?: string; chown?: string } = {}): this {
    const flags = [options.from ? `--from=${options.from}` : "", options.chown ? `--chown=${options.chown}` : ""].filter(Boolean);
    const list = Array.isArray(sources) ? sources : [sources];
    this.lines.push(["COPY", ...flags, ...list, destination].join(" "));
    return this;
  }

  /** `RUN <shell command>`. */
  run(command: string): this {
    this.lines.push(`RUN ${command}`);
    return this;
  }

  user(user: string): this {
    this.lines.push(`USER ${user}`);
    return this;
  }

  expose(port: number): this {
    this.lines.push(`EXPOSE ${port}`);
    return this;
  }

  /** Exec form: `CMD ["node", "server.js"]`; no shell, so the program receives signals directly. */
  cmd(args: string[]): this {
    this.lines.push(`CMD [${args.map((arg) => JSON.stringify(arg)).join(", ")}]`);
    return this;
  }

  /**
   * Shell form, only for commands that need the shell (to expand `$PORT`, or to chain steps with
   * `&&` or `;`). The last step is `exec`-ed so it replaces the shell and receives `docker stop`'s
   * signal; earlier steps (migrations) run first.
   */
  cmdShell(command: string): this {
    const steps = command.trim().split(/(\s*(?:&&|;)\s*)/);
    const last = steps.pop() ?? "";
    this.lines.push(`CMD ${steps.join("")}${/^exec\s/.test(last) ? last : `exec ${last}`}`);
    return this;
  }

  /** Exec form when the command is plain words, else shell form. */
  start(command: string): this {
    const args = execArgs(command);
    return args ? this.cmd(args) : this.cmdShell(command);
  }

  toString(): string {
    return `${this.lines.join("\n")}\n`;
  }
}

function envValue(value: string): string {
  return /^[A-Za-z0-9_./:,@%+=$-]*$/.test(value) ? value : JSON.stringify(value);
}

/** Splits a simple command line into exec-form arguments, or null when it needs a shell. */
export function execArgs(command: string): string[] | null {
  if (!command.trim() || /[|&;<>()$`\\"'*?~{}[\]]/.test(command) || /(^|\s)[A-Za-z_][A-Za-z0-9_]*=/.test(command)) return null;
  return command.trim().split(/\s+/);
}
