import type { OperationId } from "./internal/route.js";

const FOR_PEOPLE = "A person does it in a browser (signing in, tokens, paying and authorising the code host are for people).";
const FOR_SERVICES = "Not called for an account: a proxy, a monitor or the payment provider calls it.";

/**
 * Operations that no client acting for an account (the CLI, the MCP server) offers, and why. The
 * reason belongs to the operation, not to the client: a person does it in a browser, or a service
 * calls it. Each client's coverage map takes these lines from here, so the clients cannot disagree
 * about them; what a client merely has no command or tool for yet stays in its own map.
 */
export const OPERATIONS_NOT_FOR_CLIENTS = {
  "health.check": { none: FOR_SERVICES },
  "repohost.connect": { none: FOR_PEOPLE },
  "repohost.disconnect": { none: FOR_PEOPLE },
  "repohost.callback": { none: FOR_PEOPLE },
  "tokens.list": { none: FOR_PEOPLE },
  "tokens.revoke": { none: FOR_PEOPLE },
  "billing.prices": { none: FOR_PEOPLE },
  "billing.statuses": { none: FOR_PEOPLE },
  "billing.account.summary": { none: FOR_PEOPLE },
  "billing.webhook": { none: FOR_SERVICES },
  "billing.status": { none: FOR_PEOPLE },
  "billing.checkout": { none: FOR_PEOPLE },
  "billing.confirm": { none: FOR_PEOPLE },
  "tls.ask": { none: FOR_SERVICES },
  "edge.routes": { none: FOR_SERVICES },
  "edge.site": { none: FOR_SERVICES },
  "edge.certificate": { none: FOR_SERVICES },
  "edge.visits": { none: FOR_SERVICES },
} as const satisfies Partial<Record<OperationId, { none: string }>>;

/** The operations each client's own map must cover: every other one. */
export type ClientOperationId = Exclude<OperationId, keyof typeof OPERATIONS_NOT_FOR_CLIENTS>;
