import { randomBytes } from "node:crypto";
import { buildLocalBaseImages, docker, dockerForTests, getWithHost, removeLabelled, startFakeGitHub, startFakeStripe, type FakeGitHub, type FakeStripe } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { delivered, startPaidServer, type ApiInit, type PaidServer } from "./paid-server.js";
import type { ServerProcess } from "./server-process.js";

// The payments journey as an operator runs it: the built `reposite serve` in its own process, with
// Stripe turned on by its environment variables and pointed (STRIPE_API_BASE) at the loopback
// Stripe, which delivers its signed webhooks to the server's /billing/webhook. The app runs on the
// real Docker Engine, so its memory is read from the Engine (`docker inspect`), not from Reposite.
// The tests below share one server, one account and one app, in order: the journey.

const engine = await dockerForTests();

const RUN_LABEL = "reposite-test.run";
const run = `payments-journey-${randomBytes(4).toString("hex")}`;
const LABEL_SITE = "dev.reposite.site";
const MB = 1024 * 1024;

/** A busybox web server on 3000 that says one line first (for the logs read). */
const REPO = {
  owner: "acme",
  name: "paid-app",
  files: {
    Dockerfile: [
      "FROM reposite-test/busybox:local",
      `LABEL ${RUN_LABEL}=${run}`,
      "RUN mkdir -p /www && echo paid > /www/index.html",
      'CMD ["sh", "-c", "echo journey app up && exec httpd -f -p 3000 -h /www"]',
      "",
    ].join("\n"),
  },
};

interface ResourceView {
  limit_mb: number;
  units: number;
  on_sale: boolean;
  steps: { units: number; available: boolean; add_units: number }[];
}
interface Resources {
  memory: ResourceView;
  disk: ResourceView;
}
interface Summary {
  payments: boolean;
  products: Record<string, { seats: number; used: number; units?: number }>;
  purchases: { product: string; status: string; counts: boolean; site_id: string; project_name: string | null; in_use: boolean; units: number; quantity: number }[];
}

describe.skipIf(!engine.available)("payments journey: reposite serve with the loopback Stripe, on the Docker Engine", () => {
  let stripe: FakeStripe;
  let github: FakeGitHub;
  let journey: PaidServer;
  let server: ServerProcess;
  let site = "";
  let slug = "";
  /** The subscription of each paid checkout, for cancelling through the fake. */
  const subscriptions = { embed: "", memory: [] as string[], disk: "" };

  const api = (path: string, init?: ApiInit) => journey.request(path, init);
  const answer = <T = Record<string, unknown>>(path: string, status: number, init?: ApiInit) => journey.api<T>(path, status, init);
  const ok = <T = Record<string, unknown>>(path: string, init?: ApiInit) => answer<T>(path, 200, init);
  const deployment = (suffix = "") => `/app/sites/${site}/deployment${suffix}`;
  const resources = () => ok<Resources>(deployment("/resources"));
  const storageLimit = async () => (await ok<{ storage: { limit_mb: number } }>(deployment("/metrics"))).storage.limit_mb;

  /** Polls `read` until `done` holds of its value, or fails after `ms`. */
  async function eventually<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
    let last: T;
    for (const deadline = Date.now() + ms; ; ) {
      last = await read();
      if (done(last)) return last;
      if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(last)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The app's one running container on the Engine (a relaunch removes the one before), and the memory the Engine gave it. */
  async function runningContainer(): Promise<{ id: string; memoryMb: number }> {
    const ids = await eventually(
      "one running container",
      async () => (await docker(["ps", "-q", "--no-trunc", "--filter", `label=${RUN_LABEL}=${run}`, "--filter", `label=${LABEL_SITE}=${site}`])).stdout.split("\n").filter(Boolean),
      (each) => each.length === 1,
    );
    const [inspected] = JSON.parse((await docker(["inspect", ids[0]!])).stdout) as { HostConfig: { Memory: number; MemorySwap: number } }[];
    expect(inspected!.HostConfig.MemorySwap).toBe(inspected!.HostConfig.Memory);
    return { id: ids[0]!, memoryMb: inspected!.HostConfig.Memory / MB };
  }

  const subscriptionOf = (sessionId: string) => stripe.sessions.get(sessionId)!.subscription as string;

  beforeAll(async () => {
    await buildLocalBaseImages();
    stripe = await startFakeStripe();
    github = await startFakeGitHub({ repos: [REPO] });
    journey = await startPaidServer({
      stripe,
      github,
      email: "payer@example.com",
      project: { repo: REPO, name: "Paid App" },
      env: {
        REPOSITE_BASE_IMAGE_RUNTIME: "reposite-test/busybox:local",
        REPOSITE_BASE_IMAGE_NODE: "reposite-test/node:local",
        REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`,
        REPOSITE_BUILD_MEMORY_MB: "256",
      },
    });
    ({ server, site } = journey);
    expect(server.output().stdout).toContain("payments: on (stripe)");
    expect(server.output().stdout).toMatch(/app hosting: docker /);
  }, 120_000);

  afterAll(async () => {
    await journey?.server.kill();
    await github?.close();
    await stripe?.close();
    await removeLabelled(RUN_LABEL, run);
    const left = await Promise.all(
      [["ps", "-aq"], ["images", "-aq"], ["volume", "ls", "-q"], ["network", "ls", "-q"]].map(async (args) => (await docker([...args, "--filter", `label=${RUN_LABEL}=${run}`])).stdout.trim()),
    );
    expect(left.join(""), "left on the Engine").toBe("");
    await journey?.close();
  }, 60_000);

  it("before paying: prices come from Stripe; setting the app up answers 402 payment_required, so do memory and disk; embed is required and not paid", async () => {
    const prices = await (await fetch(`${server.url}/billing/prices`)).json();
    expect(prices).toMatchObject({
      payments: true,
      products: { embed: { on_sale: true, price_label: "$9.00 / month" }, memory: { on_sale: true, unit_price_label: "$4.00 / month" }, disk: { on_sale: true } },
    });
    await expect(answer(deployment(), 402, { method: "PUT", body: {} })).resolves.toMatchObject({ code: "payment_required" });
    // Without a set-up app there is nothing to deploy yet: the app must be set up first (which needs hosting).
    await expect(answer(deployment("/deploy"), 409, { method: "POST" })).resolves.toMatchObject({ code: "not_configured" });
    await expect(answer("/billing/memory/checkout", 402, { body: { site_id: site, units: 1 } })).resolves.toMatchObject({ code: "payment_required" });
    await expect(answer("/billing/disk/checkout", 402, { body: { site_id: site, units: 1 } })).resolves.toMatchObject({ code: "payment_required" });
    await expect(ok(`/billing/embed?site_id=${site}`)).resolves.toEqual({ paid: false, required: true, price_label: "$9.00 / month" });
    await expect(ok("/billing/account/summary")).resolves.toMatchObject({ payments: true, purchases: [], products: { embed: { seats: 0, used: 0 } } });
  });

  it("hosting: checkout → paid on Stripe's page → the webhook → paid turns true by itself → the app sets up and deploys with the free tier's 512 MB", async () => {
    const checkout = await ok<{ id: string; url: string }>("/billing/embed/checkout", { body: { site_id: site } });
    expect(checkout.url).toBe(`${stripe.url}/c/pay/${checkout.id}`);
    expect(stripe.sessions.get(checkout.id)).toMatchObject({ mode: "subscription", customer_email: "payer@example.com", metadata: { site_id: site, product: "embed" } });
    // Not paid yet: neither the status nor a confirm says so, and the gate stays shut.
    await expect(ok(`/billing/embed?site_id=${site}`)).resolves.toMatchObject({ paid: false });
    await expect(ok("/billing/embed/confirm", { body: { session_id: checkout.id } })).resolves.toEqual({ paid: false });
    await answer(deployment(), 402, { method: "PUT", body: {} });

    // The person pays on the hosted page and lands on the server's return page; Stripe sends its webhooks meanwhile.
    const paid = await fetch(checkout.url, { method: "POST", redirect: "manual" });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toMatch(new RegExp(`/account/billing/return\\?session_id=${checkout.id}$`));
    const sent = stripe.webhooks.filter((each) => (each.event.data.object as { id: string }).id === checkout.id || each.event.type === "customer.subscription.created");
    expect(sent.map((each) => each.event.type)).toEqual(["checkout.session.completed", "customer.subscription.created"]);
    delivered(sent);
    // `paid` turns true by itself: nobody called confirm.
    await eventually("GET /billing/embed", () => ok<{ paid: boolean }>(`/billing/embed?site_id=${site}`), (status) => status.paid);
    await expect(ok("/billing")).resolves.toMatchObject({ embed: { paid: true, required: true }, domain: { paid: false } });
    // Confirm (what the return page asks) agrees.
    await expect(ok("/billing/embed/confirm", { body: { session_id: checkout.id } })).resolves.toEqual({ paid: true });
    subscriptions.embed = subscriptionOf(checkout.id);

    // Stripe retries a delivery: the same event again is taken and changes nothing.
    const completed = sent[0]!;
    const again = await stripe.redeliver(completed.event.id);
    expect(again.delivery?.status).toBe(200);
    expect(JSON.parse(again.delivery!.body)).toEqual({ received: true, event_id: completed.event.id, duplicate: true });
    await expect(answer("/billing/embed/checkout", 409, { body: { site_id: site } })).resolves.toMatchObject({ code: "already_has" });

    await answer(deployment(), 201, { method: "PUT", body: { volume_path: "/data" } });
    await journey.deploy();
    const live = await ok<{ status: string; slug: string }>(deployment());
    expect(live.status).toBe("running");
    slug = live.slug;
    const port = new URL(server.url).port;
    expect(await getWithHost(`${server.url}/app/`, `${slug}.localhost:${port}`)).toMatchObject({ status: 200, body: "paid\n" });
    expect((await runningContainer()).memoryMb).toBe(512);
    const free = await resources();
    expect(free.memory).toMatchObject({ limit_mb: 512, units: 0, on_sale: true });
    expect(free.disk).toMatchObject({ limit_mb: 3072, units: 0, on_sale: true });
    expect(await storageLimit()).toBe(3072);
  }, 120_000);

  it("memory: the number is the size wanted (quantity = units not yet paid); the running container keeps its memory, the next deploy runs with the new limit on the Engine", async () => {
    await expect(answer("/billing/memory/checkout", 400, { body: { site_id: site, units: 3 } })).resolves.toMatchObject({ code: "invalid_units" });
    const one = await ok<{ id: string; url: string; units: number; quantity: number }>("/billing/memory/checkout", { body: { site_id: site, units: 1 } });
    expect(one).toEqual({ id: expect.stringMatching(/^cs_test_/), url: `${stripe.url}/c/pay/${one.id}`, units: 1, quantity: 1 });
    delivered(await stripe.pay(one.id));
    await eventually("memory units", resources, (now) => now.memory.units === 1);

    // Two wanted, one paid: the checkout charges the one more, and Stripe is asked for a quantity of 1.
    const two = await ok<{ id: string; url: string; units: number; quantity: number }>("/billing/memory/checkout", { body: { site_id: site, units: 2 } });
    expect(two).toEqual({ id: expect.any(String), url: `${stripe.url}/c/pay/${two.id}`, units: 2, quantity: 1 });
    expect(stripe.sessions.get(two.id)).toMatchObject({ mode: "subscription", amount_total: 400, metadata: { product: "memory", memory_units: "2", site_id: site } });
    const before = await runningContainer();
    delivered(await stripe.pay(two.id));
    await expect(ok("/billing/memory/confirm", { body: { session_id: two.id } })).resolves.toEqual({ paid: true, site_id: site, limit_mb: 2048 });
    subscriptions.memory = [subscriptionOf(one.id), subscriptionOf(two.id)];
    await expect(answer("/billing/memory/checkout", 409, { body: { site_id: site, units: 2 } })).resolves.toMatchObject({ code: "already_has" });

    // Paid, but the container runs as it was launched until the next deploy.
    const paid = await resources();
    expect(paid.memory).toMatchObject({ limit_mb: 512, units: 2 });
    expect(paid.memory.steps.find((step) => step.units === 2)).toMatchObject({ available: false, add_units: 0 });
    expect(paid.memory.steps.find((step) => step.units === 4)).toMatchObject({ available: true, add_units: 2 });
    expect(await runningContainer()).toEqual(before);

    await journey.deploy();
    const after = await runningContainer();
    expect(after.id).not.toBe(before.id);
    expect(after.memoryMb).toBe(2048);
    expect((await resources()).memory).toMatchObject({ limit_mb: 2048, units: 2 });
  }, 120_000);

  it("disk applies at once, with no deploy: confirmed before its webhook arrives; the late webhook changes nothing", async () => {
    const container = await runningContainer();
    const runs = (await ok<unknown[]>(deployment("/runs"))).length;
    const checkout = await ok<{ id: string; units: number; quantity: number }>("/billing/disk/checkout", { body: { site_id: site, units: 2 } });
    expect(checkout).toMatchObject({ units: 2, quantity: 2 });

    // Stripe's events are held back: only the confirm (the return page's call) tells the server.
    stripe.webhookUrl = undefined;
    const held = await stripe.pay(checkout.id);
    stripe.webhookUrl = `${server.url}/billing/webhook`;
    expect((await resources()).disk).toMatchObject({ limit_mb: 3072, units: 0 });
    await expect(ok("/billing/disk/confirm", { body: { session_id: checkout.id } })).resolves.toEqual({ paid: true, site_id: site, limit_mb: 10240 });
    expect((await resources()).disk).toMatchObject({ limit_mb: 10240, units: 2 });
    expect(await storageLimit()).toBe(10240);
    // Same container, no new run: nothing was redeployed.
    expect(await runningContainer()).toEqual(container);
    expect((await ok<unknown[]>(deployment("/runs"))).length).toBe(runs);
    subscriptions.disk = subscriptionOf(checkout.id);

    // The webhooks arrive late (first delivery) and again (a retry): nothing changes.
    const summaryBefore = await ok<Summary>("/billing/account/summary");
    for (const each of held) {
      const first = await stripe.redeliver(each.event.id);
      expect(first.delivery?.status).toBe(200);
      expect(JSON.parse(first.delivery!.body)).toMatchObject({ duplicate: false });
      const retry = await stripe.redeliver(each.event.id);
      expect(JSON.parse(retry.delivery!.body)).toMatchObject({ duplicate: true });
    }
    expect(await ok<Summary>("/billing/account/summary")).toEqual(summaryBefore);
    expect((await resources()).disk).toMatchObject({ limit_mb: 10240, units: 2 });
  }, 60_000);

  it("the account's summary: seats and used per product, every purchase for the project", async () => {
    const summary = await ok<Summary>("/billing/account/summary");
    expect(summary.payments).toBe(true);
    expect(summary.products).toEqual({
      embed: { seats: 1, used: 1 },
      memory: { seats: 2, used: 2, units: 2 },
      disk: { seats: 1, used: 1, units: 2 },
      domain: { seats: 0, used: 0 },
    });
    expect(summary.purchases.map(({ product, status, counts, site_id, project_name, in_use, units, quantity }) => ({ product, status, counts, site_id, project_name, in_use, units, quantity }))).toEqual([
      { product: "disk", status: "active", counts: true, site_id: site, project_name: "Paid App", in_use: true, units: 2, quantity: 2 },
      { product: "memory", status: "active", counts: true, site_id: site, project_name: "Paid App", in_use: true, units: 2, quantity: 1 },
      { product: "memory", status: "active", counts: true, site_id: site, project_name: "Paid App", in_use: true, units: 1, quantity: 1 },
      { product: "embed", status: "active", counts: true, site_id: site, project_name: "Paid App", in_use: true, units: 1, quantity: 1 },
    ]);
  });

  it("cancelled on Stripe: deploys answer 402 at once; reading, logs, metrics and settings keep working; with the add-ons cancelled too the app is back on the free tier (512 MB from its next container, 3 GB disk at once); stopping works, starting is 402", async () => {
    const cancelled = delivered(await stripe.cancelSubscription(subscriptions.embed));
    expect(cancelled.map((each) => each.event.type)).toEqual(["customer.subscription.deleted"]);
    await eventually("GET /billing/embed", () => ok<{ paid: boolean }>(`/billing/embed?site_id=${site}`), (status) => !status.paid);
    await expect(answer(deployment("/deploy"), 402, { method: "POST" })).resolves.toMatchObject({ code: "payment_required" });
    await expect(answer(deployment("/restart"), 402, { method: "POST" })).resolves.toMatchObject({ code: "payment_required" });
    await expect(answer("/billing/memory/checkout", 402, { body: { site_id: site, units: 4 } })).resolves.toMatchObject({ code: "payment_required" });
    // An older event delivered again (the hosting subscription's creation) does not bring hosting back.
    const created = stripe.webhooks.find((each) => each.event.type === "customer.subscription.created" && (each.event.data.object as { id: string }).id === subscriptions.embed)!;
    expect((await stripe.redeliver(created.event.id)).delivery?.status).toBe(200);
    await expect(ok(`/billing/embed?site_id=${site}`)).resolves.toMatchObject({ paid: false });

    for (const subscription of [...subscriptions.memory, subscriptions.disk]) delivered(await stripe.cancelSubscription(subscription));
    const running = await runningContainer();
    expect(running.memoryMb).toBe(2048);
    await eventually("resources back on the free tier", resources, (now) => now.memory.units === 0 && now.disk.units === 0);
    // Disk at once; memory as the running container was given, until it is replaced.
    expect((await resources()).disk).toMatchObject({ limit_mb: 3072, units: 0 });
    expect((await resources()).memory).toMatchObject({ limit_mb: 2048, units: 0 });
    expect(await storageLimit()).toBe(3072);

    // What keeps working unpaid: reading, runs, logs, metrics, settings.
    await expect(ok(deployment())).resolves.toMatchObject({ status: "running" });
    await ok(deployment("/runs"));
    const logs = await api(deployment("/logs?tail=20"));
    expect(logs.status).toBe(200);
    expect(await logs.text()).toContain("journey app up");
    await expect(ok(deployment("/metrics"))).resolves.toMatchObject({ storage: { limit_mb: 3072 } });
    await expect(ok(deployment("/env"), { method: "PUT", body: { env: { MODE: "unpaid" } } })).resolves.toEqual({ env: { MODE: "********" } });
    await expect(ok(deployment("/env"))).resolves.toEqual({ env: { MODE: "********" } });
    // The env change relaunches the app in the background (the PUT answers at once): its new
    // container has the free tier's memory.
    await eventually("the env restart", () => ok<{ last_operation: { kind: string; status: string } | null }>(deployment()), (read) => read.last_operation?.kind === "env_restart" && read.last_operation.status === "done", 60_000);
    const relaunched = await runningContainer();
    expect(relaunched.id).not.toBe(running.id);
    expect(relaunched.memoryMb).toBe(512);
    const free = await resources();
    expect(free.memory).toMatchObject({ limit_mb: 512, units: 0 });
    expect(free.disk).toMatchObject({ limit_mb: 3072, units: 0 });

    const summary = await ok<Summary>("/billing/account/summary");
    expect(summary.products).toEqual({ embed: { seats: 0, used: 0 }, memory: { seats: 0, used: 0, units: 0 }, disk: { seats: 0, used: 0, units: 0 }, domain: { seats: 0, used: 0 } });
    expect(summary.purchases.map((purchase) => [purchase.product, purchase.status, purchase.counts])).toEqual([
      ["disk", "ended", false],
      ["memory", "ended", false],
      ["memory", "ended", false],
      ["embed", "ended", false],
    ]);

    await expect(ok(deployment("/stop"), { method: "POST" })).resolves.toMatchObject({ status: "stopped" });
    await expect(answer(deployment("/start"), 402, { method: "POST" })).resolves.toMatchObject({ code: "payment_required" });
    await expect(ok(deployment())).resolves.toMatchObject({ status: "stopped" });
    // Removing works unpaid too, and takes the app off the Engine.
    await answer(deployment(), 204, { method: "DELETE" });
    expect((await docker(["ps", "-aq", "--filter", `label=${RUN_LABEL}=${run}`, "--filter", `label=${LABEL_SITE}=${site}`])).stdout.trim()).toBe("");
  }, 90_000);
});
