import { randomBytes } from "node:crypto";
import { DeploymentStore, type JobEvent } from "@reposite/core";
import { dockerForTests, LOCAL_BASE_IMAGES } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINE_LABEL, startEngineHarness, type EngineHarness } from "./engine-harness.js";

const engine = await dockerForTests();
const SECRET = `s3cr3t-${randomBytes(8).toString("hex")}`;
/** Named in each fixture's build command, so the images these builds make are told from other tests' by their history. */
const MARKER = `leftover-${randomBytes(4).toString("hex")}`;

/** A Node app built by `auto`: `build.js` runs `body` (the env in reach), the server answers what the build wrote. */
const nodeApp = (body: string) => ({
  "package.json": JSON.stringify({ name: "app", scripts: { build: `node build.js ${MARKER}`, start: "node server.js" } }),
  "build.js": `const fs = require("node:fs");\n${body}\n`,
  "server.js": "require('node:http').createServer((q, s) => s.end(require('node:fs').readFileSync('built.txt'))).listen(process.env.PORT)\n",
});

// Builds with the app's env leave no value in any image, and nothing unlabelled behind; the app's removal takes the rest (issue 21).
describe.skipIf(!engine.available)("what builds leave on the Engine", () => {
  let h: EngineHarness;
  let since: number;
  let before: Set<string>;

  const allImages = async () => h.runtime.docker.listImages({ all: true });
  /** Images made since the test began by these builds: their history names the marker, or they carry the harness label and a site. */
  const ourImages = async () => {
    const found: Array<{ id: string; labels: Record<string, string> }> = [];
    for (const image of await allImages()) {
      if (before.has(image.Id) || image.Created * 1000 < since - 1_000) continue;
      const history = await h.runtime.docker.getImage(image.Id).history().catch(() => null);
      const labels = image.Labels ?? {};
      const mine = history?.some((entry: { CreatedBy: string }) => entry.CreatedBy.includes(MARKER)) || labels[ENGINE_LABEL] === h.label.split("=")[1];
      if (mine) found.push({ id: image.Id, labels });
    }
    return found;
  };

  beforeAll(async () => {
    const { node, busybox } = LOCAL_BASE_IMAGES;
    h = await startEngineHarness({ config: { baseImages: { node, bun: node, static: node, runtime: busybox } } });
    since = Date.now();
    before = new Set((await allImages()).map((image) => image.Id));
  }, 180_000);
  afterAll(() => h?.close(), 60_000);

  it("an auto deploy with a secret, a killed build and a failed one leave no value in any image, nothing unlabelled, and nothing after the app is deleted and purged", async () => {
    const sites: string[] = [];
    const owners: string[] = [];
    const deploy = async (repo: string, files: Record<string, string>, kill = false) => {
      // One account per app: a cancelled run holds its account's build slot until it has settled.
      const owner = await h.account();
      const site = await h.project(owner, repo, files);
      sites.push(site);
      owners.push(owner);
      await h.reposite.hosting.setup(owner, site, { build_mode: "auto" });
      await h.reposite.hosting.setEnv(owner, site, { env: { BUILD_SECRET: SECRET } });
      const started = await h.reposite.hosting.deploy(owner, site);
      if (!kill) return (await h.finish(owner, started.job_id)).job;
      let text = "";
      const reading = (async () => {
        for await (const event of h.reposite.jobs.events(owner, started.job_id) as AsyncIterable<JobEvent>) if (event.type === "delta") text += event.t;
      })();
      const until = Date.now() + 60_000;
      while (!text.includes("slow build started") && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(text).toContain("slow build started");
      await h.reposite.jobs.cancel(owner, started.job_id);
      await reading;
      return null;
    };

    const live = await deploy("secret-ok", nodeApp("fs.writeFileSync('built.txt', process.env.BUILD_SECRET ? 'secret seen' : 'no secret');"));
    expect(live?.status).toBe("done");
    const container = (await h.reposite.container.resolve(DeploymentStore).get(sites[0]!))!.container!;
    // The build step had the value: the app serves what it wrote with it.
    expect(await (await fetch(`http://127.0.0.1:${container.port}/`)).text()).toBe("secret seen");
    await deploy("secret-killed", nodeApp("console.log('slow build started'); setTimeout(() => {}, 60_000);"), true);
    const failed = await deploy("secret-failed", nodeApp("console.log('failing'); process.exit(3);"));
    expect(failed?.status).toBe("error");

    // No value in any image of the Engine, ours or not: history and config.
    for (const image of await allImages()) {
      const history = await h.runtime.docker.getImage(image.Id).history().catch(() => []);
      expect(JSON.stringify(history), `history of ${image.Id}`).not.toContain(SECRET);
      const config = await h.runtime.docker.getImage(image.Id).inspect().catch(() => ({}));
      expect(JSON.stringify(config), `config of ${image.Id}`).not.toContain(SECRET);
    }
    // Every image these builds made is the app's, and the failed and killed builds left none.
    const ours = await ourImages();
    expect(ours.length).toBeGreaterThan(0);
    for (const image of ours) expect(image.labels, image.id).toMatchObject({ [ENGINE_LABEL]: expect.any(String), "dev.reposite.site": sites[0] });

    for (const [index, site] of sites.entries()) {
      await h.reposite.projectRemoval.delete(owners[index]!, site);
      await h.reposite.projectRemoval.delete(owners[index]!, site, { purge: true }).catch(() => undefined);
    }
    expect(await ourImages()).toEqual([]);
    const containers = await h.runtime.docker.listContainers({ all: true, filters: { label: sites.map((site) => `dev.reposite.site=${site}`) } });
    expect(containers).toEqual([]);
    for (const site of sites) {
      expect(await h.runtime.docker.listContainers({ all: true, filters: { label: [`dev.reposite.site=${site}`] } })).toEqual([]);
    }
  }, 300_000);
});
