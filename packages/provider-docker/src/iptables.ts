import { execFile } from "node:child_process";
import { DOCKER_USER_CHAIN } from "./app-firewall-rules.js";

/** The `iptables` binary the Docker Engine itself uses, and its `-restore` twin. */
export interface Iptables {
  /** For example `iptables` or `iptables-legacy`. */
  readonly binary: string;
  /** Runs `<binary> -w <args>` (waits for the xtables lock); resolves with stdout. */
  run(args: string[]): Promise<string>;
  /** Whether `-C` finds the rule. */
  has(chain: string, rule: string[]): Promise<boolean>;
  /** Feeds `text` to `<binary>-restore -w --noflush`: only the chains it declares change. */
  restore(text: string): Promise<void>;
}

/**
 * Both the nf_tables and the legacy backend may be installed, and rules added through the one the
 * Engine does not use are checked on another path: the right binary is the one that sees Docker's
 * `DOCKER-USER` chain. Answers it, or why none could be used.
 */
export async function findIptables(candidates: readonly string[]): Promise<Iptables | { problem: string }> {
  const problems: string[] = [];
  for (const binary of candidates) {
    const iptables = iptablesAt(binary);
    try {
      await iptables.run(["-S", DOCKER_USER_CHAIN]);
      return iptables;
    } catch (error) {
      problems.push(`${binary}: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  return { problem: problems.join("; ") };
}

function iptablesAt(binary: string): Iptables {
  const run = (command: string, args: string[], input?: string) =>
    new Promise<string>((resolve, reject) => {
      const child = execFile(command, args, { timeout: 30_000 }, (error, stdout, stderr) => {
        // nf_tables builds warn on stderr when legacy tables exist too: only the exit code counts.
        if (error) reject(new Error(`${command} ${args.join(" ")}: ${stderr.trim() || error.message}`));
        else resolve(stdout);
      });
      child.stdin?.end(input);
    });
  return {
    binary,
    run: (args) => run(binary, ["-w", ...args]),
    has: (chain, rule) => run(binary, ["-w", "-C", chain, ...rule]).then(() => true, () => false),
    restore: async (text) => {
      await run(`${binary}-restore`, ["-w", "--noflush"], text);
    },
  };
}
