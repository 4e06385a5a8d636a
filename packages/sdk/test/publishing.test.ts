import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Reposite } from "@reposite/core";
import { startServer, type RunningServer } from "@reposite/server";
import { startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ConflictError, createClient, NotFoundError, UnprocessableEntityError, type RepositeClient } from "../src/index.js";

// The SDK against the real server over a socket, with a loopback fake GitHub behind it.
let github: FakeGitHub;
let reposite: Reposite;
let server: RunningServer;
let dataDir: string;
let client: RepositeClient;
let other: RepositeClient;

beforeAll(async () => {
  github = await startFakeGitHub({
    repos: [{ owner: "acme", name: "notebook", description: "Notes for data science", topics: ["jupyter"], readme: "# Notebook\n\nNotes that run.\n\n## FAQ\n\n### Does it run offline?\n\nYes, everything runs on your machine.\n" }],
  });
  dataDir = await mkdtemp(join(tmpdir(), "reposite-sdk-publish-"));
  server = await startServer({
    settings: {
      listen: { port: 0, hostname: "127.0.0.1" },
      reposite: {
        config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test" },
        github: { apiUrl: github.url, webHosts: ["github.com"] },
      },
    },
  });
  reposite = server.reposite;
  const baseURL = server.url;
  const token = async (email: string) => {
    const { account } = await reposite.accounts.findOrCreate(email);
    return (await reposite.tokens.create(account.id, { name: "sdk", lifetime: "30d" })).secret;
  };
  client = createClient({ baseURL, token: await token("ada@example.com") });
  other = createClient({ baseURL, token: await token("eve@example.com") });
});
afterAll(async () => {
  await server?.close();
  await github?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("checks and sets a slug, publishes the site and one page", async () => {
  const site = await client.sites.create({ repohost_url: "https://github.com/acme/notebook" });
  await expect(client.publishing.checkSlug("notes")).resolves.toEqual({ available: true });
  await expect(client.publishing.checkSlug("api")).resolves.toEqual({ available: false, reason: "reserved" });
  await expect(client.publishing.checkSlug("No")).resolves.toEqual({ available: false, reason: "invalid" });

  await expect(client.publishing.publish(site.id)).rejects.toSatisfy(
    (error) => error instanceof ConflictError && error.code === "nothing_to_publish",
  );

  await expect(client.publishing.setSlug(site.id, "notes")).resolves.toEqual({ slug: "notes", url: "http://notes.sites.test" });
  await expect(client.publishing.checkSlug("notes")).resolves.toEqual({ available: false, reason: "taken" });
  await expect(client.publishing.setSlug(site.id, "Not Valid")).rejects.toSatisfy(
    (error) => error instanceof UnprocessableEntityError && error.code === "invalid_slug",
  );
  const second = await client.sites.create({ repohost_url: "https://github.com/acme/notebook" });
  await expect(client.publishing.setSlug(second.id, "notes")).rejects.toSatisfy(
    (error) => error instanceof ConflictError && error.code === "slug_taken",
  );
  await expect(client.publishing.setSlug(second.id, "www")).rejects.toSatisfy(
    (error) => error instanceof ConflictError && error.code === "slug_reserved",
  );

  const started = await client.sites.generate(site.id, { mode: "website", pages: ["faq"], community: true });
  let job = (await client.jobs.wait(started.job_id)).job;
  while (job.next_job_id) job = (await client.jobs.wait(job.next_job_id)).job;

  await expect(client.publishing.publish(site.id)).resolves.toEqual({ url: "http://notes.sites.test", pages: ["template", "faq"], warnings: [] });
  await expect(client.publishing.publish(site.id, { discourse: false })).resolves.toMatchObject({ pages: ["template", "faq"] });
  await expect(client.publishing.publishPage(site.id, "faq")).resolves.toEqual({ url: "http://notes.sites.test", pages: ["template", "faq"], warnings: [] });
  await expect(other.publishing.publish(site.id)).rejects.toBeInstanceOf(NotFoundError);

  // Renaming moves the address.
  await expect(client.publishing.setSlug(site.id, "notes-2")).resolves.toEqual({ slug: "notes-2", url: "http://notes-2.sites.test" });
  await expect(client.publishing.checkSlug("notes")).resolves.toEqual({ available: true });
});

it("lists the members of a published site for its owner only", async () => {
  const site = await client.sites.create({ repohost_url: "https://github.com/acme/notebook" });
  await expect(client.sites.members(site.id)).resolves.toEqual([]);
  // Sign-up on the site's /auth is covered by the server's site tests; here the member is registered in core.
  await reposite.members.register(site.id, { email: "grace@example.com", password: "correct horse battery" });
  const members = await client.sites.members(site.id);
  expect(members).toEqual([{ id: expect.any(String), site_id: site.id, email: "grace@example.com", created_at: expect.any(String), last_sign_in_at: null }]);
  await expect(other.sites.members(site.id)).rejects.toBeInstanceOf(NotFoundError);
});
