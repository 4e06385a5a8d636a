import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dockerForTests, freePort } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, startServerProcess, type ServerProcess } from "../server-process.js";

/**
 * The network holder image is pulled once at `reposite serve`'s start when the Engine lacks it.
 * No registry answers here, so what is proved is the failure path: one clear line, the server
 * serves, and the next start tries again; and `reposite admin images` lists the image as missing.
 */
const engine = await dockerForTests();

describe.skipIf(!engine.available)("pulling the network holder image at start", () => {
  let dataDir: string;
  let server: ServerProcess | undefined;
  let env: Record<string, string>;
  // A loopback registry nobody listens on: the Engine's pull is refused at once.
  let image = "";

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "reposite-holder-pull-"));
    image = `127.0.0.1:${await freePort()}/pause:never`;
    env = { REPOSITE_DATA_DIR: dataDir, REPOSITE_NETWORK_HOLDER_IMAGE: image };
  });
  afterAll(async () => {
    await server?.kill();
    await rm(dataDir, { recursive: true, force: true });
  });

  const pullLine = async (process: ServerProcess) => {
    for (let tries = 0; tries < 100 && !process.output().stdout.includes("could not pull the network holder image"); tries++) await new Promise((resolve) => setTimeout(resolve, 100));
    return process.output().stdout.split("\n").filter((line) => line.includes("network holder image"));
  };

  it("a failed pull says so in one line and the server serves; the next start tries again", async () => {
    const port = await freePort();
    server = await startServerProcess(port, env);
    const lines = await pullLine(server);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`could not pull the network holder image ${image}`);
    expect(lines[0]).toContain("tried again at the next start");
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    await server.stop();
    server = await startServerProcess(port, env);
    expect(await pullLine(server)).toHaveLength(1);
  }, 60_000);

  it("reposite admin images lists the holder image with its state", async () => {
    const { stdout } = await new Promise<{ stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, "admin", "images"], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "ignore"] });
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      child.on("exit", () => resolve({ stdout: out }));
    });
    const row = stdout.split("\n").find((line) => line.startsWith(`${image}\t`));
    expect(row?.split("\t")).toEqual([image, "missing", "network holders (REPOSITE_NETWORK_HOLDER_IMAGE; pulled at the server's start when missing)"]);
  }, 30_000);
});
