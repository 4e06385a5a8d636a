import { defineOperation } from "../operation.js";
import { domainInputSchema, domainReadSchema, domainSchema, domainVerifySchema, tlsAskAnswerSchema, tlsAskQuerySchema } from "../schemas/domain.js";
import { siteParamsSchema } from "../schemas/projects.js";

const TAG = "Custom domain";

export const domainSet = defineOperation({
  id: "domain.set",
  method: "PUT",
  path: "/app/sites/:site_id/domain",
  tag: TAG,
  summary: "Connects a domain to the project (replacing its previous one) and answers the DNS records to add",
  auth: "token",
  params: siteParamsSchema,
  body: domainInputSchema,
  answers: { 200: { description: "The domain and its records", schema: domainSchema } },
  errors: ["invalid_request", "invalid_domain", "reserved_domain", "bare_domain_unavailable", "payment_required", "quota_reached", "domain_taken"],
});

export const domainVerify = defineOperation({
  id: "domain.verify",
  method: "POST",
  path: "/app/sites/:site_id/domain/verify",
  tag: TAG,
  summary: "Looks the DNS records up now; once found the domain serves the project and gets its HTTPS certificate",
  auth: "token",
  params: siteParamsSchema,
  answers: { 200: { description: "The domain and what DNS says (`dns.message`)", schema: domainVerifySchema } },
  errors: ["no_domain", "payment_required", "quota_reached", "domain_taken"],
});

export const domainGet = defineOperation({
  id: "domain.get",
  method: "GET",
  path: "/app/sites/:site_id/domain",
  tag: TAG,
  summary: "The project's domain and whether the site answers on it now (`live`)",
  auth: "token",
  params: siteParamsSchema,
  answers: { 200: { description: "The domain (`domain` null when there is none)", schema: domainReadSchema } },
});

export const domainRemove = defineOperation({
  id: "domain.remove",
  method: "DELETE",
  path: "/app/sites/:site_id/domain",
  tag: TAG,
  summary: "Disconnects the domain (always free); the address under the sites domain keeps working",
  auth: "token",
  params: siteParamsSchema,
  answers: { 204: { description: "Removed (or there was none)" } },
});

export const tlsAsk = defineOperation({
  id: "tls.ask",
  method: "GET",
  path: "/tls/ask",
  tag: TAG,
  summary:
    "For a TLS terminator's on-demand certificates (Caddy's `ask`): 200 for a verified custom domain, a published site's address or the service's own host, 404 for every other name",
  auth: "none",
  query: tlsAskQuerySchema,
  answers: { 200: { description: "A certificate may be issued for the name", schema: tlsAskAnswerSchema } },
  errors: ["domain_required", "invalid_domain", "certificate_not_allowed", "storage_unavailable"],
});
