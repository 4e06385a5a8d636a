import { inject, injectable } from "tsyringe";
import { conflict, RepositeError } from "../errors.js";
import type { TerminalSession } from "../ports/container-runtime.js";
import { untilAborted } from "../util/until-aborted.js";
import { AppAccess } from "./app-access.js";
import { HostingAvailability } from "./hosting-availability.js";

/** A terminal's size in characters. */
export interface TerminalSize {
  cols: number;
  rows: number;
}

/** Shells open at once on one app: enough for a few tabs, not a way to fill the box with processes. */
export const MAX_TERMINALS_PER_APP = 4;

/** Bounds a terminal's size is held to (a window wider than this is still usable at this size). */
export const TERMINAL_COLS = { min: 10, max: 500 } as const;
export const TERMINAL_ROWS = { min: 2, max: 200 } as const;

/**
 * bash when the box has it, else the POSIX shell every base image has. One exec, no probe first:
 * the shell that looks for bash replaces itself with it.
 */
export const SHELL_COMMAND = ["/bin/sh", "-c", "if command -v bash >/dev/null 2>&1; then exec bash; else exec /bin/sh; fi"];

const clamp = (value: number, { min, max }: { min: number; max: number }) =>
  Math.min(max, Math.max(min, Number.isFinite(value) ? Math.round(value) : min));

/** Holds a size to the bounds above. */
export const terminalSize = (size: TerminalSize): TerminalSize => ({
  cols: clamp(size.cols, TERMINAL_COLS),
  rows: clamp(size.rows, TERMINAL_ROWS),
});

/**
 * A shell in a bare box for its owner (the app's screen connects it to a browser terminal). Only a
 * `bare` app has one: a Dockerfile app's container is the app, not a place to work in. Answers
 * `404` for a project missing or someone else's, `409 not_configured`, `409 not_bare`, `409
 * app_not_running`, `503 hosting_unavailable` / `terminal_unavailable`, and `429
 * too_many_terminals` past `MAX_TERMINALS_PER_APP`.
 */
@injectable()
export class AppTerminal {
  /** Open terminals by site, so each app's count is held and `close()` ends them all. */
  private readonly sessions = new Map<string, Set<TerminalSession>>();
  /** Terminals being opened now, by site: they count against the limit already. */
  private readonly opening = new Map<string, number>();

  constructor(
    @inject(HostingAvailability) private readonly availability: HostingAvailability,
    @inject(AppAccess) private readonly access: AppAccess,
  ) {}

  /**
   * Everything `open` would refuse, checked without opening anything: the server asks this
   * before it accepts a WebSocket, so a refusal is an HTTP answer, not a socket that closes.
   */
  async check(ownerId: string, siteId: string): Promise<void> {
    await this.container(ownerId, siteId);
    this.assertRoom(siteId);
  }

  /**
   * Opens the shell with a terminal of `size`; the session is counted until it ends. `signal` is
   * the visitor leaving: from then on the slot is free and `open` rejects with the signal's reason,
   * and a shell the engine finishes opening afterwards is closed at once.
   */
  async open(ownerId: string, siteId: string, size: TerminalSize, signal?: AbortSignal): Promise<TerminalSession> {
    const { runtime, containerId } = await this.container(ownerId, siteId);
    signal?.throwIfAborted();
    this.assertRoom(siteId);
    this.opening.set(siteId, (this.opening.get(siteId) ?? 0) + 1);
    let session: TerminalSession;
    let closeLate: (() => void) | undefined;
    try {
      const opening = runtime.openTerminal!(containerId, { command: SHELL_COMMAND, ...terminalSize(size), env: { TERM: "xterm-256color" } });
      // The engine cannot be asked to stop opening a shell: one that opens after its visitor left is closed.
      closeLate = () => void opening.then((late) => late.close(), () => undefined);
      signal?.addEventListener("abort", closeLate, { once: true });
      // Settles as soon as the visitor leaves, so the slot is free then, not when the engine answers.
      session = await untilAborted(opening, signal);
    } finally {
      if (closeLate) signal?.removeEventListener("abort", closeLate);
      const left = this.opening.get(siteId)! - 1;
      if (left === 0) this.opening.delete(siteId);
      else this.opening.set(siteId, left);
    }
    const open = this.sessions.get(siteId) ?? new Set<TerminalSession>();
    open.add(session);
    this.sessions.set(siteId, open);
    const forget = () => {
      open.delete(session);
      if (open.size === 0 && this.sessions.get(siteId) === open) this.sessions.delete(siteId);
    };
    session.onExit(forget);
    // A terminal closed by its visitor stops counting at once, not when the engine reports the
    // shell's end a moment later (a visitor who reconnects must not meet a full box).
    return {
      write: (data) => session.write(data),
      resize: (cols, rows) => session.resize(cols, rows),
      onData: (listener) => session.onData(listener),
      onExit: (listener) => session.onExit(listener),
      close: () => {
        forget();
        session.close();
      },
    };
  }

  /** Terminals open on an app now (and being opened). */
  openCount(siteId: string): number {
    return (this.sessions.get(siteId)?.size ?? 0) + (this.opening.get(siteId) ?? 0);
  }

  /** Ends every open terminal (the server is stopping). */
  close(): void {
    for (const open of [...this.sessions.values()]) for (const session of [...open]) session.close();
  }

  private assertRoom(siteId: string): void {
    if (this.openCount(siteId) >= MAX_TERMINALS_PER_APP) {
      throw new RepositeError(429, `This box already has ${MAX_TERMINALS_PER_APP} terminals open. Close one first.`, "too_many_terminals");
    }
  }

  private async container(ownerId: string, siteId: string) {
    const runtime = this.availability.runtime();
    const { deployment } = await this.access.owned(ownerId, siteId);
    if (deployment.setup.build_mode !== "bare") {
      throw conflict("Only a bare box has a terminal (build_mode: bare); this app runs its own Dockerfile.", "not_bare");
    }
    if (!runtime.capabilities.execTty || !runtime.openTerminal) {
      throw new RepositeError(503, `The container runtime (${runtime.name}) cannot open a terminal in a container.`, "terminal_unavailable");
    }
    const state = deployment.container && deployment.status === "running" ? await runtime.inspectContainer(deployment.container.id) : null;
    if (!deployment.container || !state?.running) {
      throw conflict("The box is not running: deploy or start it first.", "app_not_running");
    }
    return { runtime, containerId: deployment.container.id };
  }
}
