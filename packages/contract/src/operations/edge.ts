import { defineOperation } from "../operation.js";
import { edgeCertificateParamsSchema, edgeCertificateSchema, edgeFeedSchema, edgeRoutesQuerySchema, edgeSiteParamsSchema, edgeSiteSchema, edgeVisitsAnswerSchema, edgeVisitsInputSchema } from "../schemas/edge.js";

const TAG = "Edge";

// Called by `reposite edge` with the operator's edge token (REPOSITE_EDGE_TOKEN, `Authorization: Bearer`), never by people:
// a missing or wrong token is `401` (no code, as for API tokens); a server without an edge token answers `404 not_found`.

export const edgeRoutes = defineOperation({
  id: "edge.routes",
  method: "GET",
  path: "/edge/routes",
  tag: TAG,
  summary: "The route table and published sites for an edge; waits up to about 25 s while `after` is still the newest version",
  auth: "none",
  query: edgeRoutesQuerySchema,
  answers: { 200: { description: "The table now (the same version as `after` when nothing changed meanwhile)", schema: edgeFeedSchema } },
  errors: ["not_found", "invalid_request"],
});

export const edgeSite = defineOperation({
  id: "edge.site",
  method: "GET",
  path: "/edge/sites/:slug",
  tag: TAG,
  summary: "A published site's files for an edge to write (its newest version)",
  auth: "none",
  params: edgeSiteParamsSchema,
  answers: { 200: { description: "The site's snapshot, bodies inline", schema: edgeSiteSchema } },
  errors: ["not_found", "invalid_request"],
});

export const edgeCertificate = defineOperation({
  id: "edge.certificate",
  method: "GET",
  path: "/edge/certificates/:name",
  tag: TAG,
  summary: "A certificate built-in ACME ordered, with its private key, for an edge to serve by SNI (edge token only; never cached)",
  auth: "none",
  params: edgeCertificateParamsSchema,
  answers: { 200: { description: "The key and chain of the name's current certificate", schema: edgeCertificateSchema } },
  errors: ["not_found", "invalid_request"],
});

export const edgeVisits = defineOperation({
  id: "edge.visits",
  method: "POST",
  path: "/edge/visits",
  tag: TAG,
  summary: "Page views an edge's nginx served from files, counted as the Node runtime counts its own",
  auth: "none",
  body: edgeVisitsInputSchema,
  answers: { 200: { description: "Counted", schema: edgeVisitsAnswerSchema } },
  errors: ["not_found", "invalid_request"],
});
