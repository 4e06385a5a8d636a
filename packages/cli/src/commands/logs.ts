import { cliCommand, type CommandEnv } from "../command.js";
import { connect, findSite } from "../connection.js";
import { UsageError } from "../exit-codes.js";
import { SITE_ARG } from "./sites.js";

const DEFAULT_TAIL = 100;
/** Lines read on each look while following: the most lines an app may write between two looks. */
const FOLLOW_WINDOW = 1000;
const FOLLOW_EVERY_MS = 1000;

/** `reposite logs <site>`: the app's own output; `-f` keeps printing what it writes. */
export function logsCommand(env: CommandEnv) {
  return cliCommand(env, {
    name: "reposite logs",
    description: "Print the app's output (stdout and stderr); -f keeps following it",
    args: {
      site: SITE_ARG,
      tail: { type: "string", description: `how many of the last lines (default ${DEFAULT_TAIL}, at most 5000)`, valueHint: "n" },
      follow: { type: "boolean", alias: "f", description: "keep printing new lines until interrupted (Ctrl-C)" },
    },
    run: async ({ args, out }) => {
      const tail = args.tail === undefined ? DEFAULT_TAIL : Number(args.tail);
      if (!Number.isInteger(tail) || tail < 1) throw new UsageError(`--tail takes a whole number of lines, 1 or more; not ${JSON.stringify(args.tail)}.`);
      const { client } = await connect(args.server);
      const site = await findSite(client, args.site);
      let seen = toLines(await client.deployment.logs(site.id, { tail }));
      if (!args.follow) {
        out.result({ site_id: site.id, lines: seen }, () => seen.forEach((line) => out.line(line)));
        return;
      }
      const print = (lines: string[]) => {
        for (const line of lines) {
          if (out.json) out.event({ type: "line", text: line });
          else out.line(line);
        }
      };
      print(seen);
      const stopped = new Promise<void>((resolve) => {
        process.once("SIGINT", () => resolve());
        process.once("SIGTERM", () => resolve());
      });
      for (;;) {
        const pause = new Promise<"look">((resolve) => setTimeout(() => resolve("look"), FOLLOW_EVERY_MS));
        if ((await Promise.race([pause, stopped.then(() => "stop" as const)])) === "stop") return;
        const window = toLines(await client.deployment.logs(site.id, { tail: FOLLOW_WINDOW }));
        print(newLines(seen, window));
        seen = window;
      }
    },
  });
}

function toLines(text: string): string[] {
  return text === "" ? [] : text.replace(/\n$/, "").split("\n");
}

/**
 * The lines of `next` that `previous` had not shown. Both are the ends of the same log, so the
 * longest end of `previous` that begins `next` is what they share; no overlap means everything is
 * new (more was written than one look reads, or the app has a new container and a new log).
 */
export function newLines(previous: string[], next: string[]): string[] {
  for (let shared = Math.min(previous.length, next.length); shared > 0; shared--) {
    let same = true;
    for (let index = 0; index < shared && same; index++) same = previous[previous.length - shared + index] === next[index];
    if (same) return next.slice(shared);
  }
  return next;
}
