import type { DeploymentSetup } from "../deployment-setup.js";
import type { Diagnosis } from "../diagnosis/diagnosis.js";
import { isLoopback } from "../diagnosis/listening.js";

/**
 * A fix the diagnosis makes certain, needing no model: a setup change, a change to the failing
 * Dockerfile, or both. `edit` answers null when it cannot apply to that Dockerfile (it is missing,
 * or already has the change).
 */
export interface RuleFix {
  /** What the fix does, for the fix job's stream. */
  says: string;
  setup?: { port: number };
  edit?: (dockerfile: string) => string | null;
}

const WILDCARD = new Set(["0.0.0.0", "::", "[::]", "*", ""]);

/** Kinds where the app ran but could not be reached on `PORT`. */
const UNREACHABLE = new Set(["not_listening", "listening_on_localhost", "health_timeout"]);

/**
 * The fix the diagnosis knows, or null:
 * - no start command, but the repository has one (`evidence.start_command`): add it as `CMD`;
 * - the app listens on every address but on another port than the setup's: set `port` to it;
 * - the app listens on 127.0.0.1 only: `ENV HOST=0.0.0.0 HOSTNAME=0.0.0.0` (what Node frameworks
 *   such as Next.js, Nuxt and Remix read), with `port` set too when that port is not the setup's.
 */
export function ruleFix(diagnosis: Diagnosis | null, setup: DeploymentSetup): RuleFix | null {
  if (!diagnosis || setup.build_mode === "bare") return null;
  const evidence = diagnosis.evidence ?? {};
  if (diagnosis.kind === "no_start_command" && evidence.start_command && evidence.start_command.length > 0) {
    const command = evidence.start_command;
    const cmd = `CMD ${JSON.stringify(command)}`;
    return { says: `add ${cmd}: the repository's own start command`, edit: (dockerfile) => `${dockerfile.replace(/\s*$/, "")}\n${cmd}\n` };
  }
  if (!UNREACHABLE.has(diagnosis.kind) || !evidence.listening?.length) return null;
  const open = evidence.listening.find((socket) => WILDCARD.has(socket.address) && socket.port !== setup.port);
  const onPort = evidence.listening.some((socket) => WILDCARD.has(socket.address) && socket.port === setup.port);
  if (open && !onPort) return { says: `set port to ${open.port}: the app listens there, not on ${setup.port}`, setup: { port: open.port } };
  const local = evidence.listening.find((socket) => isLoopback(socket.address) && socket.port === setup.port) ?? evidence.listening.find((socket) => isLoopback(socket.address));
  if (!local || onPort) return null;
  const env = "ENV HOST=0.0.0.0 HOSTNAME=0.0.0.0";
  const edit = (dockerfile: string) => (/\bHOSTNAME=0\.0\.0\.0\b/.test(dockerfile) ? null : `${dockerfile.replace(/\s*$/, "")}\n${env}\n`);
  if (local.port !== setup.port) {
    return { says: `add ${env} and set port to ${local.port}: the app listens on 127.0.0.1:${local.port}, which cannot be reached from outside its container`, setup: { port: local.port }, edit };
  }
  return { says: `add ${env}: the app listens on 127.0.0.1 only, which cannot be reached from outside its container`, edit };
}
