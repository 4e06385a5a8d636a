import type { ReadmeFixture } from "./fixture.js";

/**
 * A monorepo framework's README, trimmed from the shape of Reposite's own: an opening sentence with
 * an aside ("and, on request,"), bullets whose bold lead starts their sentence ("**a framework** a
 * platform team embeds: …"), a quick start whose prose introduces code, a subsection whose
 * introduction is followed by a JSON block, long operator sections (payments, HTTPS) with a
 * colon-introduced numbered list, a settings table and a packages table.
 */
export const wharfMonorepo: ReadmeFixture = {
  id: "wharf-monorepo",
  shape: "monorepo framework with operator sections",
  readme: `# Wharf

Wharf turns a code repository into a documentation website and, on request, a running preview app.
Give it a repository link; it writes the pages from the README (its own words, tables and pictures,
nothing made up) in one of 12 themes, publishes them at \`https://<slug>.<docs domain>\`, and can
build the repository behind \`/preview/\`.

It is three things at once:

- **a framework** a platform team embeds: \`import { createWharf } from "@wharf/core"\`, swap any port
  (storage, code host, containers…) for your own;
- **a server** an operator runs with one command: \`npx wharf serve\`, everything on embedded defaults;
- **clients** for programs, people and agents, all on the same HTTP API: the typed SDK \`@wharf/sdk\`
  and the command line \`wharf\`.

> Status: projects, themes, publishing and previews work; billing arrives in the next release.

## Quick start

On a machine with Node.js 20.19 or newer:

\`\`\`sh
npm install && npm run quickstart     # builds, starts the server, makes and publishes a site
npm test                              # builds and runs every test
\`\`\`

\`npm run quickstart\` serves on \`http://localhost:4000\` and keeps its data in \`./.wharf\`. It prints
an API token, creates a project from a sample repository, writes its pages and publishes them.

## The SDK

A typed TypeScript client of the HTTP API for servers, scripts, CI jobs and agents. Its only runtime
dependency is \`ofetch\`.

\`\`\`ts
import { createClient } from "@wharf/sdk";

const wharf = createClient({ baseURL: "http://localhost:4000", token: process.env.WHARF_TOKEN });
const site = await wharf.sites.create({ repository: "github.com/acme/widget" });
\`\`\`

Every method takes \`RequestOptions\` last: \`signal\`, \`timeout\`, \`maxRetries\`, \`headers\`.

Resources follow the API's groups: \`sites\`, \`themes\`, \`versions\`, \`jobs\`, \`publishing\`, \`previews\`
(with \`previews.env\` and \`previews.runs\`; \`logs\`, \`metrics\`, \`restart\`, \`stop\`, \`start\`, \`remove\`),
\`billing\` (\`prices\`, \`status\`, \`checkout\`), \`domain\`, \`tokens\` and \`agent\`. An error answer throws a
class by status, carrying \`status\`, \`code\`, \`body\` and \`headers\`; no answer throws \`APIConnectionError\`.

Retries: a request that fails with a connection error, a 429 or a 5xx is tried again up to
\`maxRetries\` times (2 by default), waiting as \`Retry-After\` says or with a backoff from half a
second; a request that writes is retried only when it carries an idempotency key.

## Editor plugin

Editors that speak the Language Server Protocol preview a page as you write its README, through
\`wharf-lsp\`, a small program the editor starts and talks to over stdio.

### Add it to an editor

Most editors take a JSON entry like this one (VS Code: \`settings.json\`; Helix: \`languages.toml\`):

\`\`\`json
{ "wharf": { "command": "npx", "args": ["-y", "@wharf/lsp"] } }
\`\`\`

Editors pass only a few variables on to the servers they start, so set both in the entry's \`env\`.

| Variable | Meaning |
|---|---|
| \`WHARF_URL\` | The Wharf server's address (default \`http://localhost:4000\`) |
| \`WHARF_TOKEN\` | An API token from the account page |

## Configuration

Every setting is an environment variable with a default that works on one machine.

| variable | default | what it does |
|---|---|---|
| \`PORT\` | \`4000\` | port the server listens on |
| \`WHARF_DATA_DIR\` | \`./.wharf\` | where the embedded defaults keep their data |
| \`WHARF_PREVIEW_MEMORY_MB\` | \`512\` | memory one preview app may use |

## Payments with Stripe

Without \`STRIPE_SECRET_KEY\` a server sells nothing: payments are off and every preview is free. To
sell preview hours and custom domains, set up Stripe once:

1. **Products and prices** (Stripe Dashboard → Product catalog). Create two products, each with one
   price, and put the price ids in the environment:
   - Preview hours — recurring, monthly, per unit → \`STRIPE_PRICE_PREVIEW\`
   - Custom domain — **one-time** → \`STRIPE_PRICE_DOMAIN\`

   Use standard per-unit pricing with a fixed amount (not tiered, not "customer chooses"). At the
   first read the server checks each price; a wrong one is reported naming its variable. Prices are
   read from Stripe and kept for 5 minutes, so a changed amount shows within minutes, but changing
   the price id needs a restart. Each check is logged with the variable it read and the answer
   Stripe gave, so an operator can see at once which price was refused and why.
2. **Webhook endpoint** (Dashboard → Developers → Webhooks → Add endpoint): the URL is
   \`$WHARF_BASE_URL/billing/webhook\`, and it sends these events:
   - \`checkout.session.completed\` (a purchase paid),
   - \`customer.subscription.deleted\` (a cancelled subscription ends the purchase).

   Other events are answered and ignored. Copy the endpoint's **signing secret** into
   \`STRIPE_WEBHOOK_SECRET\`. Every webhook's signature is checked over the exact body received;
   one that does not hold is answered \`400\` and changes nothing.
3. **Customer portal** (Dashboard → Settings → Billing → Customer portal): turn it on.

Card details never reach Wharf: the person pays on Stripe's page.

## HTTPS with Caddy in front

The simplest way to serve the service and every project's address over HTTPS: run \`wharf serve\` on
\`127.0.0.1:4000\` with \`WHARF_TRUST_PROXY=1\`, and \`caddy\` (2.6+) in front with
[\`docs/deploy/Caddyfile\`](docs/deploy/Caddyfile). Caddy gets each certificate from Let's Encrypt
during the first handshake for a name, after asking Wharf (\`GET /tls/ask?domain=<name>\`): only
published sites' addresses and the service's own host get one. DNS: the service's host and a
wildcard \`*.<docs domain>\` point at the server. Details and how to check it:
[\`docs/deploy/caddy.md\`](docs/deploy/caddy.md).

## HTTPS without a proxy: built-in ACME

Wharf can terminate TLS itself instead of sitting behind Caddy. Set \`WHARF_HTTPS_PORT\` and it
listens for HTTPS too, with certificates it orders from an ACME CA over the HTTP-01 challenge:

\`\`\`sh
HOST=0.0.0.0 PORT=80 WHARF_HTTPS_PORT=443 WHARF_ACME_EMAIL=ops@example.com wharf serve
\`\`\`

What gets a certificate:

- the **service's own host**, when \`WHARF_BASE_URL\` is \`https://\` on a name;
- the names in \`WHARF_ACME_HOSTNAMES\`.

How it works:

1. The server orders a certificate with a new private key (ECDSA P-256). The CA asks
   \`http://<name>/.well-known/acme-challenge/<token>\` on **port 80**; the server answers it from
   memory, before host routing, so no site ever answers for the CA.
2. Every hour the server looks at every name: a certificate with fewer than 30 days left is
   renewed, and the old one is served until the new one is stored.

## Packages

| package | what it holds |
|---|---|
| [\`@wharf/core\`](packages/core) | the domain and its ports; \`createWharf()\` |
| [\`@wharf/server\`](packages/server) | the reference server and the \`wharf\` CLI |
| [\`@wharf/sdk\`](packages/sdk) | the typed client |

How the layers fit: [\`docs/architecture.md\`](docs/architecture.md).

## Development

\`\`\`sh
npm run build       # every package to ESM JS + .d.ts
npm test            # build, then vitest over all workspaces
\`\`\`

Tests never leave the machine: third-party services are answered by loopback fakes.
`,
  product: {
    name: "wharf",
    description: "Turn a code repository into a documentation website and a running preview app.",
    repositoryUrl: "https://github.com/wharfhq/wharf",
    topics: ["typescript", "documentation"],
    defaultBranch: "main",
  },
  expect: {
    name: "Wharf",
    tables: 3,
    numbers: ["12 themes"],
    installCommand: "npm install && npm run quickstart",
    questions: 0,
    heroImage: null,
    download: null,
    heroTitle: "Wharf turns a code repository into a documentation website",
    featureTitles: ["A framework", "A server", "Clients"],
    operatorSections: ["Configuration", "Payments with Stripe", "HTTPS with Caddy in front", "HTTPS without a proxy: built-in ACME"],
  },
};
