import type { SourceTree } from "../../repo-analysis/source-tree.js";
import type { Diagnosis } from "./diagnosis.js";
import { dockerfileName, type DockerfileFacts } from "./dockerfile-facts.js";
import { dockerfileSteps, finalBaseImage, hasStartCommand } from "./dockerfile-steps.js";
import { isLoopback, type ListeningSocket } from "./listening.js";
import { formatMb, memoryNeeded } from "./size-needed.js";
import type { StartFacts } from "./start-facts.js";
import { repositoryStartCommand } from "./start-command.js";
import { seconds, withOutput } from "./wording.js";

/** What the run knew besides the container: the Dockerfile it built and the repository's files. */
export interface StartContext {
  dockerfile: DockerfileFacts | null;
  tree: SourceTree | null;
}

/** The exit code of a process killed by SIGKILL: the OOM killer's mark (Docker may not flag it when an init runs the app). */
const KILLED_EXIT_CODE = 137;

/**
 * A new container that did not come up, explained from what was seen of it: killed for memory,
 * ended at once with no start command, crashed, answered errors, listened elsewhere or on
 * 127.0.0.1 only (told apart by the sockets found inside it), or just did not answer in time.
 */
export function diagnoseStartFailure(facts: StartFacts, context: StartContext): Diagnosis {
  const { state } = facts;
  const exitCode = state?.exitCode ?? undefined;
  if (facts.outcome === "exited") {
    if (state?.oomKilled || exitCode === KILLED_EXIT_CODE) return outOfMemory(facts);
    if (!facts.keepAlive && !facts.afterAnswer && context.dockerfile?.text && !hasStartCommand(dockerfileSteps(context.dockerfile.text))) {
      return noStartCommand(context, exitCode, facts.output);
    }
    return crashed(facts);
  }
  if (facts.lastStatus !== null) return healthError(facts);
  if (facts.listening) {
    const onPort = facts.listening.filter((socket) => socket.port === facts.port);
    if (onPort.some((socket) => !isLoopback(socket.address))) return healthTimeout(facts, context.dockerfile?.origin === "auto");
    if (onPort.length > 0) return listeningOnLocalhost(facts, onPort);
    return notListening(facts, facts.listening);
  }
  if (facts.lastError === "a probe timed out") return healthTimeout(facts, context.dockerfile?.origin === "auto");
  return notListening(facts, null);
}

/** The image has no start command at all: Docker refused to make its container. */
export function noCommandAtAll(context: StartContext): Diagnosis {
  return noStartCommand(context, undefined, [], true);
}

function outOfMemory(facts: StartFacts): Diagnosis {
  const needed = memoryNeeded(facts.memoryMb, facts.memoryMb);
  const when = facts.afterAnswer ? "right after it first answered" : "as it started";
  return {
    kind: "out_of_memory",
    title: "The app ran out of memory",
    detail: withOutput(
      `The app used all of its ${formatMb(facts.memoryMb)} of memory ${when} and was killed (exit code ${facts.state?.exitCode ?? KILLED_EXIT_CODE}).`,
      "Its last output:",
      facts.output,
    ),
    fix: `Give the app more memory: ${formatMb(needed)}. Or make it use less: load less at start, keep less in memory, or cap its heap (for Node, for example, NODE_OPTIONS=--max-old-space-size=${Math.floor(facts.memoryMb * 0.75)}).`,
    limit: { kind: "memory", needed },
    evidence: { exit_code: facts.state?.exitCode ?? KILLED_EXIT_CODE, peak_memory_mb: facts.memoryMb },
  };
}

function noStartCommand(context: StartContext, exitCode: number | undefined, output: readonly string[], refused = false): Diagnosis {
  const name = dockerfileName(context.dockerfile);
  const base = context.dockerfile?.text ? finalBaseImage(dockerfileSteps(context.dockerfile.text)) : null;
  const found = repositoryStartCommand(context.tree);
  const what = refused
    ? "so Docker had nothing to run and did not start the container"
    : `so the container ran what its base image${base ? ` (${base})` : ""} runs by default, a shell or an interpreter waiting for input, which ended at once${exitCode !== undefined ? ` (exit code ${exitCode})` : ""} without starting the app`;
  const command = found ? `CMD ${JSON.stringify(found.command)}` : null;
  return {
    kind: "no_start_command",
    title: "The app has no start command",
    detail: withOutput(`${capitalize(name)} does not say how to start the app (it has no CMD or ENTRYPOINT), ${what}.`, "Its output:", output),
    fix: found
      ? `Add \`${command}\` as the last line of ${name}: ${found.source} starts the app. POST …/deployment/fix can do it for you.`
      : `Add a CMD line at the end of ${name} that starts the app so it listens on the port in the PORT variable, for example CMD ["node", "server.js"] or CMD ["python", "app.py"].`,
    evidence: { ...(exitCode !== undefined ? { exit_code: exitCode } : {}), ...(found ? { start_command: found.command } : {}) },
  };
}

function crashed(facts: StartFacts): Diagnosis {
  const code = facts.state?.exitCode;
  const how = code !== null && code !== undefined ? `exited with code ${code}` : "stopped";
  const when = facts.keepAlive ? "right after it started" : facts.afterAnswer ? `right after it first answered GET ${facts.healthPath}` : `before it answered GET ${facts.healthPath}`;
  return {
    kind: "crash_on_start",
    title: facts.keepAlive ? "The box stopped right after it started" : "The app crashed on start",
    detail: withOutput(`The app's container ${how} ${when}.`, "Its last output:", facts.output, "It printed nothing."),
    fix:
      "Its last output says why it stopped: often a setting or secret it needs that is not set (PUT …/deployment/env), a file or module it cannot find, " +
      "or a start command that ends instead of keeping a server running. Fix that, then deploy again.",
    ...(code !== null && code !== undefined ? { evidence: { exit_code: code } } : {}),
  };
}

function healthError(facts: StartFacts): Diagnosis {
  return {
    kind: "health_error",
    title: `The app answers ${facts.healthPath} with ${facts.lastStatus !== null && facts.lastStatus < 500 ? facts.lastStatus : `an error (${facts.lastStatus})`}`,
    detail: withOutput(
      `The app runs and answers on port ${facts.port}, but GET ${facts.healthPath} answered ${facts.lastStatus} until the ${seconds(facts.timeoutMs)} it had to come up were over. Reposite sends traffic only to an app whose health path answers with a 2xx or 3xx status${facts.lastStatus === 404 ? " (a 404 means the path is not the app's, or another program answers)" : ""}.`,
      "Its last output:",
      facts.output,
    ),
    fix: `Its output shows the error behind the ${facts.lastStatus}. Fix it, or point the health path (health_path, now ${facts.healthPath}) at a page that answers once the app is ready, then deploy again.`,
  };
}

function healthTimeout(facts: StartFacts, auto: boolean): Diagnosis {
  const listens = facts.listening?.filter((socket) => socket.port === facts.port && !isLoopback(socket.address)) ?? [];
  const seen = listens.length > 0 ? `The app listens on ${describe(listens)}, but GET ${facts.healthPath} got no answer` : `GET ${facts.healthPath} on port ${facts.port} got no answer`;
  return {
    kind: "health_timeout",
    title: `The app did not answer ${facts.healthPath} in time`,
    detail: withOutput(`${seen} within the ${seconds(facts.timeoutMs)} it had to come up${facts.lastError ? ` (${facts.lastError})` : ""}.`, "Its last output:", facts.output),
    fix:
      `Make ${facts.healthPath} answer quickly once the app is up (a health path should not wait for slow work), and start faster: ` +
      (auto
        ? "leave installs and builds to the repository's build script (an automatic build runs it before the app starts), not to the start script. Then deploy again."
        : "do installs and builds in the Dockerfile, not when the container starts. Then deploy again."),
    ...(listens.length > 0 ? { evidence: { listening: listens } } : {}),
  };
}

function listeningOnLocalhost(facts: StartFacts, onPort: ListeningSocket[]): Diagnosis {
  return {
    kind: "listening_on_localhost",
    title: `The app listens on ${onPort[0]!.address} only`,
    detail:
      `The app listens on ${describe(onPort)}: an address reachable only from inside its own container, ` +
      `so Reposite's traffic and its health check on port ${facts.port} cannot reach it.`,
    fix:
      "Make the app listen on all addresses, 0.0.0.0, instead of 127.0.0.1 or localhost: for example server.listen(process.env.PORT, \"0.0.0.0\") in Node, " +
      'app.run(host="0.0.0.0") in Flask, --host 0.0.0.0 for most development servers. Then deploy again.',
    evidence: { listening: facts.listening! },
  };
}

function notListening(facts: StartFacts, listening: ListeningSocket[] | null): Diagnosis {
  const others = (listening ?? []).filter((socket) => socket.port !== facts.port);
  const reachable = others.filter((socket) => !isLoopback(socket.address));
  const expected = `Reposite sends the app's traffic to port ${facts.port} (the setup's port, given to the app in the PORT variable)`;
  if (others.length > 0) {
    const port = (reachable[0] ?? others[0]!).port;
    return {
      kind: "not_listening",
      title: `The app listens on port ${port}, not ${facts.port}`,
      detail: withOutput(`${expected}, but it listens on ${describe(others)} and nothing answers on ${facts.port}.`, "Its last output:", facts.output),
      fix:
        `Set the app's port to ${port} (PUT …/deployment with "port": ${port}), or make the app listen on the port in the PORT variable` +
        `${reachable.length === 0 ? " and on 0.0.0.0 (127.0.0.1 is reachable only from inside the container)" : ""}. Then deploy again. POST …/deployment/fix can change the port for you.`,
      evidence: { listening: others },
    };
  }
  if (listening) {
    return {
      kind: "not_listening",
      title: "The app does not listen on any port",
      detail: withOutput(
        `${expected}, but after ${seconds(facts.timeoutMs)} nothing in its container listened for connections at all: the app runs but has not started a server.`,
        "Its last output:",
        facts.output,
      ),
      fix: `Make the app start its web server, listening on 0.0.0.0 and the port in the PORT variable (${facts.port}). If it is a worker with no web page, it cannot be hosted as an app. Then deploy again.`,
      evidence: { listening: [] },
    };
  }
  return {
    kind: "not_listening",
    title: `Nothing answered on port ${facts.port}`,
    detail: withOutput(
      `${expected}, but nothing answered there within ${seconds(facts.timeoutMs)} (${facts.lastError ?? "no answer"}). ` +
        "Reposite could not look inside the container to see whether the app listens on another port or on 127.0.0.1 only.",
      "Its last output:",
      facts.output,
    ),
    fix: `Make the app listen on 0.0.0.0 (not 127.0.0.1 or localhost) and on the port in the PORT variable (${facts.port}), or set the app's port to the one it uses. Then deploy again.`,
  };
}

/** `0.0.0.0:8080 and :::8080`. */
function describe(sockets: readonly ListeningSocket[]): string {
  const names = sockets.map((socket) => (socket.address.includes(":") ? `[${socket.address}]:${socket.port}` : `${socket.address}:${socket.port}`));
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
