import type { OperationId } from "./internal/route.js";

/**
 * The operations of the API the SDK has no method for, and why: they are for a browser, a payment
 * provider, a proxy or a monitor, not for a program acting for an account. Every other operation
 * has a method (the client-coverage test walks the contract's operations against both).
 */
export const OPERATIONS_WITHOUT_METHOD: Partial<Record<OperationId, string>> = {
  "health.check": "For load balancers and monitors; a failed call of any method tells a program as much.",
  "docs.markdown": "The reference for people, served as a page at /docs/api.",
  "openapi.get": "For generators and tools that read OpenAPI; the SDK's types are the same contract.",
  "repohost.callback": "The code host sends the person's browser there after they authorise it.",
  "billing.webhook": "The payment provider calls it, signed; no account calls it.",
  "tls.ask": "Caddy's on-demand TLS asks it before getting a certificate.",
  "edge.routes": "The nginx edge node reads it (with the edge's token).",
  "edge.site": "The nginx edge node reads it (with the edge's token).",
  "edge.certificate": "The nginx edge node reads it (with the edge's token); it holds a private key.",
  "edge.visits": "The nginx edge node reports page views to it.",
};
