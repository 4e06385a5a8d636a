import { dockerForTests } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEngineHarness, type EngineHarness } from "./engine-harness.js";
import { DeploymentStore } from "@reposite/core";

const engine = await dockerForTests();

// The harness itself: a Dockerfile app deploys on the Engine and the fixture label reaches it.
describe.skipIf(!engine.available)("engine harness", () => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await startEngineHarness();
  }, 120_000);
  afterAll(() => h?.close(), 60_000);

  it("deploys a small app and reads its writable layer's size", async () => {
    const owner = await h.account();
    const site = await h.project(owner, "harness-app", {
      Dockerfile: [`FROM ${h.images.busybox}`, h.label, "RUN mkdir -p /www && echo ok > /www/index.html", 'CMD ["httpd", "-f", "-p", "3000", "-h", "/www"]', ""].join("\n"),
    });
    const { job } = await h.deploy(owner, site);
    expect(job.status).toBe("done");
    const read = await h.reposite.hosting.read(owner, site);
    expect(read.status).toBe("running");
    const project = { deployment: await h.reposite.container.resolve(DeploymentStore).get(site) };
    expect(await h.runtime.containerSize(project.deployment!.container!.id)).toBeGreaterThanOrEqual(0);
    const exec = await h.runtime.exec!(project.deployment!.container!.id, ["sh", "-c", "echo out; echo err >&2; exit 3"]);
    expect(exec).toEqual({ exitCode: 3, output: expect.stringMatching(/out\nerr\n|err\nout\n/) });
  }, 120_000);
});
