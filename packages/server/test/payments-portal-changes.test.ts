import { randomBytes } from "node:crypto";
import { buildLocalBaseImages, docker, dockerForTests, removeLabelled, startFakeGitHub, startFakeStripe, type FakeGitHub, type FakeStripe } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { delivered, startPaidServer, type PaidServer } from "./paid-server.js";

// What a person changes on Stripe's side after paying, seen by `reposite serve` in its own process
// with the real `stripe` client pointed at the loopback Stripe, which signs and delivers its webhooks
// to the server's /billing/webhook: a quantity lowered in the billing portal, and webhooks signed with
// a time ahead of the server's clock.

const engine = await dockerForTests();

const RUN_LABEL = "reposite-test.run";
const run = `payments-portal-${randomBytes(4).toString("hex")}`;
const LABEL_SITE = "dev.reposite.site";
const MB = 1024 * 1024;

const REPO = {
  owner: "acme",
  name: "portal-app",
  files: {
    Dockerfile: ["FROM reposite-test/busybox:local", `LABEL ${RUN_LABEL}=${run}`, "RUN mkdir -p /www && echo portal > /www/index.html", 'CMD ["httpd", "-f", "-p", "3000", "-h", "/www"]', ""].join("\n"),
  },
};

/** The one account and project of each server below. */
const PORTAL = { email: "portal@example.com", project: { repo: REPO, name: "Portal App" } };

interface ResourceView {
  limit_mb: number;
  units: number;
  steps: { units: number; available: boolean; add_units: number }[];
}
interface Summary {
  products: Record<string, { seats: number; used: number; units?: number }>;
  purchases: { product: string; status: string; units: number; quantity: number }[];
}

describe("webhooks signed ahead of the server's clock, in a real server process", () => {
  let stripe: FakeStripe;
  let github: FakeGitHub;
  let paid: PaidServer;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    github = await startFakeGitHub({ repos: [REPO] });
    paid = await startPaidServer({ stripe, github, ...PORTAL, env: { REPOSITE_HOSTING: "off" } });
  }, 60_000);
  afterAll(async () => {
    await paid?.close();
    await github?.close();
    await stripe?.close();
  });

  /** Posts `payload` with a correct signature made for `timestamp`. */
  const post = async (payload: string, timestamp: number) => {
    const response = await fetch(`${paid.server.url}/billing/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": stripe.sign(payload, timestamp) },
      body: payload,
    });
    return { status: response.status, body: (await response.json()) as { code?: string; error?: string; received?: boolean } };
  };

  it("a correctly signed event 10 minutes ahead is refused (400 webhook_from_future) and changes nothing; within the 5-minute skew it is taken; 10 minutes old stays invalid_signature", async () => {
    const { api, site } = paid;
    const checkout = await api<{ id: string }>("/billing/embed/checkout", 200, { body: { site_id: site } });
    // Paid on Stripe's page; the events are built and signed but held back, to be sent by hand.
    stripe.webhookUrl = undefined;
    const [completed] = await stripe.pay(checkout.id);
    const now = Math.floor(Date.now() / 1000);

    const ahead = await post(completed!.payload, now + 600);
    expect(ahead.status).toBe(400);
    expect(ahead.body).toMatchObject({ code: "webhook_from_future" });
    expect(ahead.body.error).toMatch(/ahead of this server's clock/);
    await expect(api(`/billing/embed?site_id=${site}`, 200)).resolves.toMatchObject({ paid: false });

    const old = await post(completed!.payload, now - 600);
    expect(old).toMatchObject({ status: 400, body: { code: "invalid_signature" } });
    await expect(api(`/billing/embed?site_id=${site}`, 200)).resolves.toMatchObject({ paid: false });

    // A clock a little behind Stripe's is normal: a minute ahead is taken.
    const skewed = await post(completed!.payload, now + 60);
    expect(skewed).toMatchObject({ status: 200, body: { received: true } });
    await expect(api(`/billing/embed?site_id=${site}`, 200)).resolves.toMatchObject({ paid: true });
  });
});

describe.skipIf(!engine.available)("a quantity lowered in the billing portal lowers the app's limits (reposite serve, loopback Stripe, Docker Engine)", () => {
  let stripe: FakeStripe;
  let github: FakeGitHub;
  let paid: PaidServer;
  let subscription = "";

  const deployment = (suffix = "") => `/app/sites/${paid.site}/deployment${suffix}`;
  const resources = () => paid.api<{ memory: ResourceView; disk: ResourceView }>(deployment("/resources"), 200);
  const summary = () => paid.api<Summary>("/billing/account/summary", 200);
  const storageLimit = async () => (await paid.api<{ storage: { limit_mb: number } }>(deployment("/metrics"), 200)).storage.limit_mb;

  /** The app's one running container (a relaunch removes the one before soon after). */
  async function appContainer(): Promise<string> {
    let ids: string[] = [];
    for (const deadline = Date.now() + 10_000; ids.length !== 1 && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
      ids = (await docker(["ps", "-q", "--filter", `label=${RUN_LABEL}=${run}`, "--filter", `label=${LABEL_SITE}=${paid.site}`])).stdout.split("\n").filter(Boolean);
    }
    expect(ids).toHaveLength(1);
    return ids[0]!;
  }

  /** The memory the Engine gave the app's running container. */
  async function containerMemoryMb(): Promise<number> {
    const [inspected] = JSON.parse((await docker(["inspect", await appContainer()])).stdout) as { HostConfig: { Memory: number } }[];
    return inspected!.HostConfig.Memory / MB;
  }

  /** The room left in the app's data volume as the app itself sees it (`df` inside the container). */
  async function volumeRoomMb(): Promise<number> {
    const { stdout } = await docker(["exec", await appContainer(), "df", "-m", "/data"]);
    return Number(stdout.trim().split("\n").at(-1)!.trim().split(/\s+/)[3]);
  }

  beforeAll(async () => {
    await buildLocalBaseImages();
    stripe = await startFakeStripe();
    github = await startFakeGitHub({ repos: [REPO] });
    paid = await startPaidServer({
      stripe,
      github,
      ...PORTAL,
      env: {
        REPOSITE_BASE_IMAGE_RUNTIME: "reposite-test/busybox:local",
        REPOSITE_BASE_IMAGE_NODE: "reposite-test/node:local",
        REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`,
        REPOSITE_BUILD_MEMORY_MB: "256",
      },
    });
  }, 120_000);

  afterAll(async () => {
    await paid?.close();
    await github?.close();
    await stripe?.close();
    await removeLabelled(RUN_LABEL, run);
  }, 60_000);

  it("hosting with 2 GB memory and 10 GB disk, paid on Stripe's page: the app runs with 2 GB", async () => {
    const checkout = await paid.api<{ id: string; url: string }>("/billing/embed/checkout", 200, { body: { site_id: paid.site, resources: { memory: 2, disk: 2 } } });
    const page = await fetch(checkout.url, { method: "POST", redirect: "manual" });
    expect(page.status).toBe(303);
    delivered(stripe.webhooks.filter((each) => each.event.type === "checkout.session.completed" || each.event.type === "customer.subscription.created"));
    subscription = stripe.sessions.get(checkout.id)!.subscription as string;

    await paid.api(deployment(), 201, { method: "PUT", body: { volume_path: "/data" } });
    await paid.deploy();
    expect(await containerMemoryMb()).toBe(2048);
    expect(await resources()).toMatchObject({ memory: { limit_mb: 2048, units: 2 }, disk: { limit_mb: 10240, units: 2 } });
    expect(await storageLimit()).toBe(10240);
  }, 120_000);

  it("lowered to 1 GB memory and 5 GB disk in the portal: disk at once, memory from the next deploy; the summary counts what is charged; buying back is possible", async () => {
    delivered(await stripe.updateSubscription(subscription, { price: stripe.priceIds.memory, quantity: 1 }));
    expect(await volumeRoomMb()).toBeGreaterThan(9000);
    delivered(await stripe.updateSubscription(subscription, { price: stripe.priceIds.disk, quantity: 1 }));

    // Disk at once, before anyone asks the API: the app's volume has no more room than 5 GB.
    for (const deadline = Date.now() + 5_000; (await volumeRoomMb()) > 5120; await new Promise((resolve) => setTimeout(resolve, 100))) {
      if (Date.now() > deadline) throw new Error(`the volume still has ${await volumeRoomMb()} MB of room after the disk was lowered to 5 GB`);
    }
    // The limit the API reports and the one the app is measured against.
    const lowered = await resources();
    expect(lowered.disk).toMatchObject({ limit_mb: 5120, units: 1 });
    expect(await storageLimit()).toBe(5120);
    // Memory: the running container keeps what it was given; one unit is paid now.
    expect(lowered.memory).toMatchObject({ limit_mb: 2048, units: 1 });
    expect(lowered.memory.steps.find((step) => step.units === 2)).toMatchObject({ available: true, add_units: 1 });

    const after = await summary();
    expect(after.products).toMatchObject({ embed: { seats: 1, used: 1 }, memory: { seats: 1, units: 1 }, disk: { seats: 1, units: 1 } });
    expect(after.purchases.filter((each) => each.product !== "embed").map(({ product, status, units, quantity }) => ({ product, status, units, quantity }))).toEqual([
      { product: "disk", status: "active", units: 1, quantity: 1 },
      { product: "memory", status: "active", units: 1, quantity: 1 },
    ]);

    await paid.deploy();
    expect(await containerMemoryMb()).toBe(1024);
    expect((await resources()).memory).toMatchObject({ limit_mb: 1024, units: 1 });

    // The unit given up is sold again (before, 2 units were "already_has").
    await expect(paid.api("/billing/memory/checkout", 200, { body: { site_id: paid.site, units: 2 } })).resolves.toMatchObject({ units: 2, quantity: 1 });
  }, 120_000);
});
