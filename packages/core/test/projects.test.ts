import { startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { createStorage, type Storage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReposite, type Reposite } from "../src/index.js";

/** Storage that remembers every key read, to prove what a call touched. */
function spyOn(storage: Storage) {
  const reads: string[] = [];
  const spied = new Proxy(storage, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === "getItem" || property === "getItems" || property === "getKeys" || property === "hasItem") {
        return (key: unknown, ...rest: unknown[]) => {
          reads.push(`${String(property)} ${JSON.stringify(key)}`);
          return (value as (...args: unknown[]) => unknown).call(target, key, ...rest);
        };
      }
      return value;
    },
  });
  return { storage: spied, reads };
}

describe("projects service", () => {
  let github: FakeGitHub;
  let reposite: Reposite;
  let reads: string[];

  beforeAll(async () => {
    github = await startFakeGitHub({
      repos: [{ owner: "acme", name: "widget", description: "Widgets", topics: ["database"], readme: "# Widget" }],
    });
    const spy = spyOn(createStorage());
    reads = spy.reads;
    reposite = createReposite({ storage: spy.storage, github: { apiUrl: github.url, webHosts: ["github.com"] } });
  });
  afterAll(async () => {
    await reposite.close();
    await github.close();
  });

  it("lists one account's projects by reading only that account's index and records, then from memory until one changes", async () => {
    const { account: ada } = await reposite.accounts.findOrCreate("ada@example.com");
    const { account: bob } = await reposite.accounts.findOrCreate("bob@example.com");
    const adas: Awaited<ReturnType<Reposite["projects"]["create"]>>[] = [];
    for (let i = 0; i < 3; i++) adas.push(await reposite.projects.create(ada.id, { repohost_url: "github.com/acme/widget" }));
    const bobs = [];
    for (let i = 0; i < 20; i++) bobs.push(await reposite.projects.create(bob.id, { repohost_url: "github.com/acme/widget" }));

    reads.length = 0;
    const list = await reposite.projects.list(ada.id);
    expect(list.map((p) => p.id)).toEqual(adas.map((p) => p.id).reverse());
    expect(reads.some((read) => read.startsWith("getKeys"))).toBe(false);
    for (const project of bobs) expect(reads.join("\n")).not.toContain(project.id);
    // The index, each project, and each project's app (hosting's record).
    expect(reads).toHaveLength(1 + 2 * adas.length);

    reads.length = 0;
    expect(await reposite.projects.list(ada.id)).toEqual(list);
    expect(reads).toEqual([]);

    // A change is seen at once, by reading the changed project alone; a new project, by the index and it.
    await reposite.projects.update(ada.id, adas[1]!.id, { name: "Renamed" });
    const more = await reposite.projects.create(ada.id, { repohost_url: "github.com/acme/widget" });
    reads.length = 0;
    const after = await reposite.projects.list(ada.id);
    expect(after.map((p) => [p.id, p.name])).toEqual([[more.id, more.name], ...list.map((p) => [p.id, p.id === adas[1]!.id ? "Renamed" : p.name])]);
    expect(reads.filter((read) => read.startsWith("getItem \"projects:")).sort()).toEqual([`getItem "projects:${adas[1]!.id}"`, `getItem "projects:${more.id}"`].sort());
  });

  it("is usable without HTTP by an embedder, with the same validation", async () => {
    const { account } = await reposite.accounts.findOrCreate("carol@example.com");
    await expect(reposite.projects.create(account.id, { repohost_url: "ftp://example.com/x" })).rejects.toMatchObject({
      status: 422,
      code: "invalid_repo_url",
    });
    const project = await reposite.projects.create(account.id, { repohost_url: "https://github.com/acme/widget/tree/main/docs" });
    expect(project.repohost_url).toBe("https://github.com/acme/widget");
  });
});
