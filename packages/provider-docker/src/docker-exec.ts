import { randomBytes } from "node:crypto";
import type { Duplex } from "node:stream";
import { PassThrough } from "node:stream";
import type { ExecResult, TerminalOptions, TerminalSession } from "@reposite/core";
import type Docker from "dockerode";

const DEFAULT_MAX_BYTES = 64 * 1024;

/**
 * Runs `command` in container `id` without a terminal: stdout and stderr are read in order (the
 * Engine frames them; `demuxStream` takes them apart) up to `maxBytes`, then the exit code is
 * read from the exec's inspect. A command still running at `timeoutMs` has its stream dropped.
 */
export async function execInContainer(
  docker: Docker,
  id: string,
  command: string[],
  options: { timeoutMs?: number; maxBytes?: number } = {},
): Promise<ExecResult> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const exec = await docker.getContainer(id).exec({ Cmd: command, AttachStdout: true, AttachStderr: true, Tty: false });
  const stream = (await exec.start({ hijack: true, stdin: false })) as Duplex;
  const chunks: Buffer[] = [];
  let bytes = 0;
  const sink = new PassThrough();
  sink.on("data", (chunk: Buffer) => {
    if (bytes >= maxBytes) return;
    chunks.push(chunk.subarray(0, maxBytes - bytes));
    bytes += chunk.length;
  });
  docker.modem.demuxStream(stream, sink, sink);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      stream.destroy();
      resolve();
    }, options.timeoutMs ?? 10_000);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    stream.on("end", done);
    stream.on("close", done);
    stream.on("error", done);
  });
  const info = await exec.inspect();
  return { exitCode: info.ExitCode ?? -1, output: Buffer.concat(chunks).toString("utf8") };
}

/** The env name that marks a terminal's processes, so closing it can find them all (see `killMarked`). */
const SESSION_MARK = "REPOSITE_TERMINAL_SESSION";

/**
 * A shell in container `id` with a terminal: one hijacked connection carries the keystrokes in
 * and the screen out (with a TTY the Engine sends raw bytes, no framing), and the exec is resized
 * through its own endpoint. The Engine keeps an exec running when its connection closes, so
 * `close()` also kills what the terminal started (see `killMarked`).
 */
export async function openTerminal(docker: Docker, id: string, options: TerminalOptions): Promise<TerminalSession> {
  const mark = randomBytes(12).toString("hex");
  const env = { ...options.env, [SESSION_MARK]: mark };
  const exec = await docker.getContainer(id).exec({
    Cmd: options.command,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: true,
    Env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
  });
  const stream = (await exec.start({ hijack: true, stdin: true, Tty: true })) as Duplex;
  const resize = (cols: number, rows: number) =>
    exec.resize({ w: cols, h: rows }).then(
      () => undefined,
      () => undefined, // the process may have ended meanwhile
    );
  await resize(options.cols, options.rows);
  const exitListeners: (() => void)[] = [];
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    for (const listener of exitListeners) listener();
  };
  stream.on("end", end);
  stream.on("close", end);
  stream.on("error", end);
  return {
    write: (data) => {
      if (!ended) stream.write(data);
    },
    resize,
    onData: (listener) => stream.on("data", (chunk: Buffer) => listener(new Uint8Array(chunk))),
    onExit: (listener) => (ended ? listener() : exitListeners.push(listener)),
    close: () => {
      if (!ended) void killMarked(docker, id, mark);
      stream.destroy();
      end();
    },
  };
}

/**
 * Kills every process in the container that carries the terminal's mark in its environment: the
 * shell and whatever it started (children inherit the env), found through /proc by a short
 * script any base image can run (sh, tr, grep). A process that cleared its env escapes; the box's
 * pids limit still holds.
 */
async function killMarked(docker: Docker, id: string, mark: string): Promise<void> {
  const script =
    `for p in /proc/[0-9]*; do ` +
    `tr '\\0' '\\n' < "$p/environ" 2>/dev/null | grep -qx '${SESSION_MARK}=${mark}' && kill -KILL "\${p#/proc/}" 2>/dev/null; ` +
    `done; true`;
  await execInContainer(docker, id, ["/bin/sh", "-c", script], { timeoutMs: 5_000 }).catch(() => undefined);
}
