import { randomBytes } from "node:crypto";
import { GENERATIONS_AT_A_TIME, SERVER_STOPPED_REASON } from "@reposite/core";
import { RepositeClient, type JobStreamEvent } from "@reposite/sdk";
import {
  buildLocalBaseImages,
  dnsmasqAvailable,
  dockerForTests,
  postgresForTests,
  removeLabelled,
  startDnsServer,
  startFakeGitHub,
  startFakeOpenAI,
  startFakeStripe,
  type DnsServer,
  type FakeGitHub,
  type FakeOpenAI,
  type FakeRepo,
  type FakeStripe,
  type FakeStripeWebhook,
} from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { personReadsCode } from "../../../cli/test/person.js";
import { requestHost, SITES_DOMAIN, startReplicaSet, timeUntil, type ReplicaSet } from "./replica-set.js";
import { MODEL_LANDING } from "../model-landing.js";

// The API journeys through a round-robin balancer in front of three `reposite serve` replicas on
// one PostgreSQL and one Docker Engine, with the SDK: projects, agent login, generation followed
// live, publish, billing webhooks (wherever they land), deploy, env, domains; then replica C is
// killed with SIGKILL in the middle of a redeploy, of a generation it runs, and of twenty live
// streams. What 25c's files prove alone (caches, six racing generations, the build queue's
// hand-over) is not repeated here. One rig for every step, in order: the journey.

const engine = await dockerForTests();
const postgres = postgresForTests();
const RUN_LABEL = "reposite-test.run";
const run = `journeys-${randomBytes(4).toString("hex")}`;
/** Short, so the killed replica is found quickly; the default is 15 s. */
const LEASE_SECONDS = 3;
/** The bound the docs state for a change made through one replica to reach the others. */
const BOUND_MS = 1_000;
const EMAIL = "journey@example.com";
const SLUG = `journey-${run.slice(-8)}`;
const DOMAIN = `www.${SLUG}.com`;


const APP_JS =
  'require("node:http").createServer((req, res) => res.end(process.env.GREETING || "hello")).listen(Number(process.env.PORT) || 3000, "0.0.0.0");\nprocess.on("SIGTERM", () => process.exit(0));\n';
/** The app's repository; `steps` slow its build down (the redeploy killed mid-build). */
const appRepo = (node: string, steps: string[] = []): FakeRepo => ({
  owner: "acme",
  name: "rocket-app",
  description: "A fast command line tool for launching rockets",
  topics: ["cli"],
  readme: "# rocket-app\n\nLaunch rockets.",
  files: { Dockerfile: [`FROM ${node}`, `LABEL ${RUN_LABEL}=${run}`, "WORKDIR /app", ...steps, "COPY app.js ./", 'CMD ["node", "app.js"]', ""].join("\n"), "app.js": APP_JS },
});

interface Followed {
  deltas: number[];
  text: string;
  end: JobStreamEvent | undefined;
}

describe.skipIf(!engine.available || !postgres.available || !dnsmasqAvailable())("API journeys across three replicas behind a balancer, and a replica killed", () => {
  let set: ReplicaSet;
  let github: FakeGitHub;
  let stripe: FakeStripe;
  let openai: FakeOpenAI;
  let dns: DnsServer;
  let node = "";
  let token = "";
  let siteId = "";
  /** The SDK through the balancer. */
  let client: RepositeClient;
  /** The SDK on one replica (0 = A, 1 = B, 2 = C). */
  const on = (replica: number) => new RepositeClient({ baseURL: set.replicas[replica]!.url, token });
  const site = (replica: number, path: string, host = `${SLUG}.${SITES_DOMAIN}`) => requestHost(set.replicas[replica]!.url, host, path);
  const follow = async (through: RepositeClient, jobId: string, onDelta?: () => void): Promise<Followed> => {
    const followed: Followed = { deltas: [], text: "", end: undefined };
    for await (const event of through.jobs.stream(jobId, { maxReconnects: 10 })) {
      if (event.type === "delta") {
        followed.deltas.push(event.i);
        followed.text += event.t;
        onDelta?.();
      } else if (event.type !== "meta") followed.end = event;
    }
    return followed;
  };
  /** Pays a checkout as the person would; its webhooks go to the balancer, so to any replica. */
  const pay = async (checkout: { id: string }): Promise<FakeStripeWebhook[]> => {
    const sent = await stripe.pay(checkout.id);
    for (const each of sent) expect(each.delivery, `${each.event.type}: ${each.delivery?.body}`).toMatchObject({ status: 200 });
    return sent;
  };

  beforeAll(async () => {
    const images = await buildLocalBaseImages();
    node = images.node;
    // A model slow enough (about 7 s a page) for streams to be under way when a replica dies.
    [github, stripe, openai, dns] = await Promise.all([
      startFakeGitHub({ repos: [appRepo(node)] }),
      startFakeStripe(),
      startFakeOpenAI({ replies: [JSON.stringify(MODEL_LANDING)], chunkSize: 4, delayMs: 40 }),
      startDnsServer(),
    ]);
    set = await startReplicaSet(
      3,
      {
        REPOSITE_HOSTING: "docker",
        REPOSITE_BASE_IMAGE_NODE: node,
        REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`,
        REPOSITE_BUILD_MEMORY_MB: "512",
        REPOSITE_REPLICA_LEASE_SECONDS: String(LEASE_SECONDS),
        OPENAI_BASE_URL: openai.url,
        OPENAI_API_KEY: "sk-test",
        STRIPE_SECRET_KEY: stripe.secretKey,
        STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
        STRIPE_PRICE_EMBED: stripe.priceIds.embed,
        STRIPE_PRICE_MEMORY: stripe.priceIds.memory,
        STRIPE_PRICE_DISK: stripe.priceIds.disk,
        STRIPE_PRICE_DOMAIN: stripe.priceIds.domain,
        STRIPE_API_BASE: stripe.url,
        REPOSITE_DNS_SERVERS: dns.address,
        REPOSITE_PUBLIC_HTTPS_PORT: "off",
        REPOSITE_PUBLIC_HTTP_PORT: "off",
      },
      { github },
    );
    stripe.webhookUrl = `${set.balancer.url}/billing/webhook`;
    ({ token } = await set.signUp(EMAIL));
    client = new RepositeClient({ baseURL: set.balancer.url, token });
  }, 180_000);
  afterAll(async () => {
    await set?.stopAll();
    // stopAll closed the fake GitHub too.
    await Promise.all([stripe?.close(), openai?.close(), dns?.close()]);
    await removeLabelled(RUN_LABEL, run);
  }, 60_000);

  it("projects and agent login: a login asked through one replica, confirmed by a session on another, traded through the balancer", async () => {
    const created = await client.sites.create({ repohost_url: "https://github.com/acme/rocket-app", name: "Rocket App" });
    siteId = created.id;
    expect((await client.publishing.setSlug(siteId, SLUG)).slug).toBe(SLUG);
    // Every replica lists it, whichever made it.
    for (const replica of [0, 1, 2]) expect((await on(replica).sites.list()).map((each) => each.id)).toContain(siteId);

    const anonymous = new RepositeClient({ baseURL: set.balancer.url });
    const login = await anonymous.agent.login({ client: "journey agent" });
    const code = await personReadsCode(await set.direct(), set.replicas[1]!.url, login.verification_url, EMAIL);
    const agentToken = await login.complete(code);
    expect(agentToken.user.email).toBe(EMAIL);
    const agent = new RepositeClient({ baseURL: set.balancer.url, token: agentToken.token });
    expect((await agent.sites.list()).map((each) => each.id)).toContain(siteId);
    expect((await client.tokens.list()).map((each) => each.id)).toContain(agentToken.token_id);
    await agent.agent.logout();
    for (const replica of [0, 1, 2]) {
      await expect(new RepositeClient({ baseURL: set.replicas[replica]!.url, token: agentToken.token, maxRetries: 0 }).agent.me()).rejects.toMatchObject({ status: 401 });
    }
  }, 60_000);

  it("generation followed live through the balancer, and the published site served by every replica", async () => {
    const { job_id } = await client.sites.generate(siteId, { mode: "landing" });
    const followed = await follow(client, job_id);
    expect(followed.end).toMatchObject({ type: "done" });
    expect(followed.deltas).toEqual(followed.deltas.map((_, i) => i));
    expect(followed.deltas.length).toBeGreaterThan(10);
    await client.publishing.publish(siteId);
    for (const replica of [0, 1, 2]) expect((await site(replica, "/")).body).toContain("Launch from your terminal");
  }, 60_000);

  it("billing: a purchase activates wherever its webhook lands; the app deploys on the Engine and every replica serves it", async () => {
    const landedOn = new Set<number>();
    for (const product of ["embed", "domain"] as const) {
      const checkout = await client.billing.checkout(product, { site_id: siteId });
      const before = set.balancer.served.length;
      await pay(checkout);
      // Only the webhooks went through the balancer meanwhile: round robin spread them.
      for (const replica of set.balancer.served.slice(before)) landedOn.add(replica);
      for (const replica of [0, 1, 2]) {
        await timeUntil(async () => (await on(replica).billing.status(product, { site_id: siteId })).paid === true, 5_000);
      }
    }
    expect(landedOn.size).toBeGreaterThan(1);
    await client.deployment.setup(siteId, {});
    const started = await client.deployment.deploy(siteId);
    const ended = await client.jobs.wait(started.job_id);
    expect(ended.job.status).toBe("done");
    for (const replica of [0, 1, 2]) expect((await site(replica, "/app/")).body).toBe("hello");
  }, 180_000);

  it(`env changed, domain verified and domain removed through replica A are what B and C serve within ${BOUND_MS} ms`, async () => {
    await on(0).deployment.env.set(siteId, { GREETING: "bonjour" });
    await timeUntil(async () => (await site(0, "/app/")).body === "bonjour", 60_000);
    const env = await Promise.all([1, 2].map((replica) => timeUntil(async () => (await site(replica, "/app/")).body === "bonjour", 5_000)));

    await on(0).domain.set(siteId, DOMAIN);
    await dns.setRecords({ cname: { [DOMAIN]: `${SLUG}.${SITES_DOMAIN}` }, a: { [`${SLUG}.${SITES_DOMAIN}`]: ["127.0.0.1"] } });
    expect(await on(0).domain.verify(siteId)).toMatchObject({ verified: true });
    const domain = await Promise.all(
      [1, 2].map((replica) =>
        timeUntil(async () => {
          const [proof, page] = await Promise.all([site(replica, "/.well-known/reposite-domain", DOMAIN), site(replica, "/", DOMAIN)]);
          return proof.status === 200 && page.body.includes("Launch from your terminal");
        }, 5_000),
      ),
    );
    // Removed through A: B and C stop serving it.
    await on(0).domain.remove(siteId);
    const removed = await Promise.all(
      [1, 2].map((replica) => timeUntil(async () => (await site(replica, "/.well-known/reposite-domain", DOMAIN)).status !== 200, 5_000)),
    );
    console.log(`[replicas] env change reached B and C after ${env.map(Math.round)} ms; a verified domain after ${domain.map(Math.round)} ms, its removal after ${removed.map(Math.round)} ms`);
    expect(Math.max(...env, ...domain, ...removed)).toBeLessThanOrEqual(BOUND_MS);
  }, 120_000);

  it("replica C killed mid-redeploy, mid-generation and under twenty live streams: no delta lost, C's work ends with a reason within the lease, the site and app keep serving, limits hold", async () => {
    // C redeploys the app with a slow build; the running container keeps serving meanwhile.
    github.addRepo(appRepo(node, ["RUN sleep 60"]));
    const redeploy = await on(2).deployment.deploy(siteId);
    // Killed while the slow step runs (its log line is on the deploy job's stream), not while the build starts.
    for await (const event of on(2).jobs.stream(redeploy.job_id)) {
      if (event.type === "delta" && event.t.includes("sleep 60")) break;
      if (event.type === "done" || event.type === "error") throw new Error(`the redeploy ended before C was killed: ${JSON.stringify(event.job)}`);
    }
    // C runs one generation, A another; twenty clients follow A's through the balancer (so a third of them through C).
    const onC = (await on(2).sites.generate(siteId, { mode: "landing", regenerate: true })).job_id;
    const onA = (await on(0).sites.generate(siteId, { mode: "landing", regenerate: true })).job_id;
    let started = 0;
    let killed: Promise<void> | undefined;
    let afterKill = 0;
    let cEnded: Promise<[number, number]> | undefined;
    const streams = Array.from({ length: 20 }, () => {
      let first = true;
      return follow(client, onA, () => {
        if (killed) afterKill += 1;
        if (!first) return;
        first = false;
        if (++started === 20) {
          killed = set.replicas[2]!.kill();
          // Watched from A from the kill on: how long until C's work ends.
          cEnded = Promise.all([
            timeUntil(async () => (await on(0).jobs.get(onC)).status === "aborted", 30_000),
            timeUntil(async () => (await on(0).deployment.runs.get(siteId, redeploy.run_id)).status === "failed", 30_000),
          ]);
        }
      });
    });
    // One client follows C's own generation from B.
    const followingC = follow(on(1), onC);

    const followed = await Promise.all(streams);
    await killed;
    expect(set.replicas[2]!.child.signalCode).toBe("SIGKILL");
    expect(afterKill).toBeGreaterThan(20);
    const whole = await follow(on(1), onA);
    expect(whole.end).toMatchObject({ type: "done" });
    for (const each of followed) {
      expect(each.end).toMatchObject({ type: "done" });
      expect(each.deltas).toEqual(whole.deltas);
      expect(each.text).toBe(whole.text);
    }

    // C's generation ends aborted once C's lease lapses, not after the 60 s heartbeat; its follower hears it.
    const [abortedMs, deployMs] = await cEnded!;
    expect(await on(1).jobs.get(onC)).toMatchObject({ status: "aborted", error: expect.stringContaining("The server stopped") });
    const cFollower = await followingC;
    expect(cFollower.end).toMatchObject({ type: "error", job: { status: "aborted" } });
    expect(cFollower.deltas).toEqual(cFollower.deltas.map((_, i) => i));

    // C's redeploy ends failed with the reason, found within the lease and half a lease (the watch's period).
    expect(await on(1).deployment.runs.get(siteId, redeploy.run_id)).toMatchObject({ status: "failed", reason: SERVER_STOPPED_REASON });
    console.log(`[replicas] after C was killed: its generation ended aborted at ${Math.round(abortedMs)} ms, its redeploy failed at ${Math.round(deployMs)} ms (lease ${LEASE_SECONDS} s)`);
    expect(abortedMs).toBeLessThan(LEASE_SECONDS * 1000 + 2_000);
    expect(deployMs).toBeLessThan(LEASE_SECONDS * 1500 + 2_000);
    // The running app and the site keep serving through the balancer.
    for (let i = 0; i < 3; i++) {
      expect((await requestHost(set.balancer.url, `${SLUG}.${SITES_DOMAIN}`, "/app/")).body).toBe("bonjour");
      expect((await requestHost(set.balancer.url, `${SLUG}.${SITES_DOMAIN}`, "/")).body).toContain("Launch from your terminal");
    }

    // No limit exceeded, and none held by the dead replica: racing generations start exactly the limit.
    const racing = await Promise.allSettled(Array.from({ length: GENERATIONS_AT_A_TIME + 1 }, () => client.sites.generate(siteId, { mode: "landing", regenerate: true }, { maxRetries: 0 })));
    const accepted = racing.flatMap((each) => (each.status === "fulfilled" ? [each.value.job_id] : []));
    expect(accepted).toHaveLength(GENERATIONS_AT_A_TIME);
    for (const each of racing) if (each.status === "rejected") expect(each.reason).toMatchObject({ status: 429, code: "generation_limit" });
    for (const jobId of accepted) await client.jobs.cancel(jobId);

    // Nor the account's one build at a time: the next deploy goes ahead on a live replica, with the env kept.
    github.addRepo(appRepo(node));
    const again = await client.deployment.deploy(siteId);
    expect((await client.jobs.wait(again.job_id)).job.status).toBe("done");
    expect((await requestHost(set.balancer.url, `${SLUG}.${SITES_DOMAIN}`, "/app/")).body).toBe("bonjour");
  }, 240_000);
});
