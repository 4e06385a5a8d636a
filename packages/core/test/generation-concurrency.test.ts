import { startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { createStorage } from "unstorage";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createReadmeAuthor, createReposite, GENERATIONS_AT_A_TIME, PAGE_AUTHOR, type PageAuthor, type Reposite } from "../src/index.js";
import { finish } from "./job-chain.js";

/** The README author, held at the door until the test lets every page through. */
function gatedAuthor() {
  const inner = createReadmeAuthor();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const author: PageAuthor = {
    name: inner.name,
    write: async (request, onText, signal) => {
      await gate;
      return inner.write(request, onText, signal);
    },
  };
  return { author, open: () => open() };
}

describe(`${GENERATIONS_AT_A_TIME} generations at a time per account, under concurrent requests`, () => {
  let github: FakeGitHub;
  let reposite: Reposite;
  let gated: ReturnType<typeof gatedAuthor>;
  let ownerId: string;
  let siteId: string;

  beforeEach(async () => {
    github = await startFakeGitHub({ repos: [{ owner: "acme", name: "tool", readme: "# Tool\n\nDoes things." }] });
    gated = gatedAuthor();
    reposite = createReposite({
      storage: createStorage(),
      github: { apiUrl: github.url, webHosts: ["github.com"] },
      register: (container) => container.register(PAGE_AUTHOR, { useValue: gated.author }),
    });
    ownerId = (await reposite.accounts.findOrCreate("busy@example.com")).account.id;
    siteId = (await reposite.projects.create(ownerId, { repohost_url: "github.com/acme/tool" })).id;
  });
  afterEach(async () => {
    gated.open();
    await reposite.close();
    await github.close();
  });

  const race = (count: number) =>
    Promise.allSettled(Array.from({ length: count }, () => reposite.generation.generate(ownerId, siteId, { mode: "landing", regenerate: true })));

  it("starts exactly the allowed number of racing requests; the rest get 429 generation_limit", async () => {
    const results = await race(6);
    const started = results.filter((result) => result.status === "fulfilled");
    const refused = results.filter((result) => result.status === "rejected");
    expect(started).toHaveLength(GENERATIONS_AT_A_TIME);
    expect(refused).toHaveLength(6 - GENERATIONS_AT_A_TIME);
    for (const result of refused) expect(result.reason).toMatchObject({ status: 429, code: "generation_limit" });

    // Once they are done, there is room again.
    gated.open();
    for (const result of started) await finish(reposite, ownerId, result.value.job_id);
    await expect(reposite.generation.generate(ownerId, siteId, { kind: "template" })).resolves.toMatchObject({ status: "running" });
  });

  it("with one generation under way, two racing requests start exactly one", async () => {
    await reposite.generation.generate(ownerId, siteId, { mode: "landing" });
    const results = await race(2);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    expect(results.find((result) => result.status === "rejected")).toMatchObject({ reason: { status: 429, code: "generation_limit" } });
  });

  it("counts generations of every account separately", async () => {
    const other = (await reposite.accounts.findOrCreate("other@example.com")).account.id;
    const otherSite = (await reposite.projects.create(other, { repohost_url: "github.com/acme/tool" })).id;
    const results = await Promise.allSettled([
      ...Array.from({ length: 3 }, () => reposite.generation.generate(ownerId, siteId, { mode: "landing", regenerate: true })),
      ...Array.from({ length: 3 }, () => reposite.generation.generate(other, otherSite, { mode: "landing", regenerate: true })),
    ]);
    const startedOf = (part: typeof results) => part.filter((result) => result.status === "fulfilled").length;
    expect(startedOf(results.slice(0, 3))).toBe(GENERATIONS_AT_A_TIME);
    expect(startedOf(results.slice(3))).toBe(GENERATIONS_AT_A_TIME);
  });
});
