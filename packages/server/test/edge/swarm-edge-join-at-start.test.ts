import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildLocalNginxImage, docker, dockerForTests, ensureSwarm, freePort, removeLabelled } from "@reposite/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { containerNginx } from "../../src/edge/nginx-container.js";

// A new edge container (a first start, or after the old one went) is on the apps' overlay networks
// by the time nginx answers: joined while created, not after nginx is up, when a visitor's request
// in between found no route to its app. On the real single-node swarm; named reposite-swarmtest-join-*.

const engine = await dockerForTests();
const RUN_LABEL = "reposite-test.run";
const run = `reposite-swarmtest-join-${randomBytes(4).toString("hex")}`;
const labels = { [RUN_LABEL]: run };

describe.skipIf(!engine.available)("the nginx edge container at its start", () => {
  let dir = "";

  afterAll(async () => {
    await removeLabelled(RUN_LABEL, run).catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("is on the networks it is given when nginx first answers", async () => {
    await ensureSwarm();
    const image = await buildLocalNginxImage();
    const network = `${run}-net`;
    await docker(["network", "create", "--driver", "overlay", "--attachable", "--label", `${RUN_LABEL}=${run}`, network]);
    dir = await mkdtemp(join(tmpdir(), "reposite-swarm-join-"));
    const port = await freePort();
    await writeFile(join(dir, "nginx.conf"), [`daemon off;`, `user root;`, `pid ${dir}/nginx.pid;`, "events {}", `http { access_log off; server { listen ${port}; return 200 "ok"; } }`, ""].join("\n"));
    const nginx = await containerNginx({ image, name: run, labels }).start(dir, [{ hostname: "127.0.0.1", port }], new Set([network]));
    try {
      // start() resolves once nginx answers: at that moment the container is on the app's network.
      const networks = Object.keys(JSON.parse((await docker(["inspect", "--format", "{{json .NetworkSettings.Networks}}", run])).stdout) as Record<string, unknown>);
      expect(networks.sort()).toEqual(["bridge", network].sort());
    } finally {
      await nginx.stop(3_000);
    }
  }, 120_000);
});
