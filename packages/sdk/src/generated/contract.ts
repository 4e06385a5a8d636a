// Generated from @reposite/contract by packages/sdk/test/contract-generated.test.ts: do not edit.
// Write it again with `npm run generate -w @reposite/sdk`; that test fails while it is stale.

/** Every operation of the API by its id: its method and path (`:name` placeholders). */
export const API_OPERATIONS = {
  "health.check": { method: "GET", path: "/healthz" },
  "docs.markdown": { method: "GET", path: "/docs/api.md" },
  "openapi.get": { method: "GET", path: "/openapi.json" },
  "projects.create": { method: "POST", path: "/app/sites" },
  "projects.list": { method: "GET", path: "/app/sites" },
  "projects.get": { method: "GET", path: "/app/sites/:site_id" },
  "projects.update": { method: "PATCH", path: "/app/sites/:site_id" },
  "projects.delete": { method: "DELETE", path: "/app/sites/:site_id" },
  "designs.list": { method: "GET", path: "/app/designs" },
  "repohost.lookup": { method: "GET", path: "/app/repohost/repo" },
  "repohost.connect": { method: "POST", path: "/app/repohost/connect" },
  "repohost.status": { method: "GET", path: "/app/repohost" },
  "repohost.disconnect": { method: "DELETE", path: "/app/repohost" },
  "repohost.callback": { method: "GET", path: "/app/repohost/callback" },
  "repoCheck.get": { method: "GET", path: "/app/sites/:site_id/repo-check" },
  "subdomains.check": { method: "GET", path: "/app/subdomain-check" },
  "publishing.setSlug": { method: "POST", path: "/app/sites/:site_id/slug" },
  "publishing.publish": { method: "POST", path: "/app/sites/:site_id/publish" },
  "publishing.publishPage": { method: "POST", path: "/app/sites/:site_id/publish-page" },
  "members.list": { method: "GET", path: "/app/sites/:site_id/members" },
  "tokens.list": { method: "GET", path: "/app/tokens" },
  "tokens.revoke": { method: "DELETE", path: "/app/tokens/:token_id" },
  "agent.login": { method: "POST", path: "/agent/login" },
  "agent.token": { method: "POST", path: "/agent/token" },
  "agent.me": { method: "GET", path: "/agent/me" },
  "agent.logout": { method: "DELETE", path: "/agent/token" },
  "generation.start": { method: "POST", path: "/app/sites/:site_id/generate" },
  "jobs.get": { method: "GET", path: "/app/jobs/:job_id" },
  "jobs.cancel": { method: "POST", path: "/app/jobs/:job_id/cancel" },
  "jobs.stream": { method: "GET", path: "/app/jobs/:job_id/stream" },
  "versions.list": { method: "GET", path: "/app/sites/:site_id/versions" },
  "versions.get": { method: "GET", path: "/app/versions/:version_id" },
  "versions.create": { method: "POST", path: "/app/sites/:site_id/versions" },
  "versions.makeCurrent": { method: "PUT", path: "/app/sites/:site_id/actual" },
  "deployment.setup": { method: "PUT", path: "/app/sites/:site_id/deployment" },
  "deployment.get": { method: "GET", path: "/app/sites/:site_id/deployment" },
  "deployment.remove": { method: "DELETE", path: "/app/sites/:site_id/deployment" },
  "deployment.env.set": { method: "PUT", path: "/app/sites/:site_id/deployment/env" },
  "deployment.env.get": { method: "GET", path: "/app/sites/:site_id/deployment/env" },
  "deployment.deploy": { method: "POST", path: "/app/sites/:site_id/deployment/deploy" },
  "deployment.runs.list": { method: "GET", path: "/app/sites/:site_id/deployment/runs" },
  "deployment.runs.get": { method: "GET", path: "/app/sites/:site_id/deployment/runs/:run_id" },
  "deployment.restart": { method: "POST", path: "/app/sites/:site_id/deployment/restart" },
  "deployment.stop": { method: "POST", path: "/app/sites/:site_id/deployment/stop" },
  "deployment.start": { method: "POST", path: "/app/sites/:site_id/deployment/start" },
  "deployment.resources": { method: "GET", path: "/app/sites/:site_id/deployment/resources" },
  "deployment.fix": { method: "POST", path: "/app/sites/:site_id/deployment/fix" },
  "deployment.override.remove": { method: "DELETE", path: "/app/sites/:site_id/deployment/override" },
  "deployment.logs": { method: "GET", path: "/app/sites/:site_id/deployment/logs" },
  "deployment.metrics": { method: "GET", path: "/app/sites/:site_id/deployment/metrics" },
  "deployment.reset-data": { method: "POST", path: "/app/sites/:site_id/deployment/reset-data" },
  "billing.prices": { method: "GET", path: "/billing/prices" },
  "billing.statuses": { method: "GET", path: "/billing" },
  "billing.account.summary": { method: "GET", path: "/billing/account/summary" },
  "billing.webhook": { method: "POST", path: "/billing/webhook" },
  "billing.status": { method: "GET", path: "/billing/:product" },
  "billing.checkout": { method: "POST", path: "/billing/:product/checkout" },
  "billing.confirm": { method: "POST", path: "/billing/:product/confirm" },
  "domain.set": { method: "PUT", path: "/app/sites/:site_id/domain" },
  "domain.verify": { method: "POST", path: "/app/sites/:site_id/domain/verify" },
  "domain.get": { method: "GET", path: "/app/sites/:site_id/domain" },
  "domain.remove": { method: "DELETE", path: "/app/sites/:site_id/domain" },
  "tls.ask": { method: "GET", path: "/tls/ask" },
  "edge.routes": { method: "GET", path: "/edge/routes" },
  "edge.site": { method: "GET", path: "/edge/sites/:slug" },
  "edge.certificate": { method: "GET", path: "/edge/certificates/:name" },
  "edge.visits": { method: "POST", path: "/edge/visits" },
} as const;

/** The project types a plan makes. */
export const PROJECT_TYPES = ["saas", "website", "landing"] as const;
/** Every page a site can have; `template` is the landing page. */
export const PAGE_KINDS = ["template", "about", "faq", "auth"] as const;
/** The pages a plan may have besides the landing page. */
export const PLAN_PAGES = ["about", "faq", "auth"] as const;
/** How an app is built. */
export const BUILD_MODES = ["dockerfile", "auto", "bare"] as const;
/** The images a bare box can start from. */
export const BARE_BASE_IMAGES = ["ubuntu:24.04", "debian:bookworm-slim", "alpine:3.20", "node:22-bookworm", "python:3.12-bookworm"] as const;
