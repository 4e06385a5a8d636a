import type { DiscourseOptions, Reposite } from "@reposite/core";
import { H3 } from "h3";
import { errorResponse } from "./http/error-response.js";
import { useRepositeForOperations } from "./http/operation-route.js";
import { refusePreflight } from "./http/no-cors.js";
import { createSiteDynamicHandler } from "./site-runtime/dynamic/index.js";
import type { HostResolver } from "./site-runtime/host-router.js";
import { siteRuntime } from "./site-runtime/site-runtime.js";
import { deploymentRoutes } from "./routes/deployment.js";
import { domainProof, domainRoutes } from "./routes/domain.js";
import { edgeFeedRoutes } from "./routes/edge-feed.js";
import { deploymentFixRoutes } from "./routes/deployment-fix.js";
import { deploymentOperationRoutes } from "./routes/deployment-operations.js";
import { appScreenRoutes } from "./routes/app-screen.js";
import { billingRoutes } from "./routes/billing.js";
import { designRoutes } from "./routes/designs.js";
import { discourseRoutes } from "./routes/discourse.js";
import { healthRoutes } from "./routes/health.js";
import { homeRoutes } from "./routes/home.js";
import { openApiRoutes } from "./routes/openapi.js";
import { agentRoutes } from "./routes/agent.js";
import { projectRoutes } from "./routes/projects.js";
import { generationRoutes } from "./routes/generation.js";
import { jobRoutes } from "./routes/jobs.js";
import { memberRoutes } from "./routes/members.js";
import { pageVersionRoutes } from "./routes/page-versions.js";
import { publishingRoutes } from "./routes/publishing.js";
import { repoCheckRoutes } from "./routes/repo-check.js";
import { repohostRoutes } from "./routes/repohost.js";
import { tokenRoutes } from "./routes/tokens.js";
import { tlsAskRoutes } from "./routes/tls-ask.js";
import { accountPageRoutes } from "./routes/account-pages.js";
import { billingPageRoutes } from "./routes/billing-pages.js";
import { agentPageRoutes } from "./routes/agent-pages.js";
import { adminPageRoutes } from "./routes/admin-pages.js";

export interface AppOptions {
  /** Believe `X-Forwarded-For` for the caller's address (only behind a proxy you control). */
  trustProxy?: boolean;
  /** The operator's Discourse for published sites' communities; default: the built-in forum only. */
  discourse?: DiscourseOptions | null;
  /** Custom domains: host -> slug lookups for hosts outside the sites domain; default the composition's verified ones (`reposite.domainTable`). */
  hostResolvers?: readonly HostResolver[];
}

/** The HTTP layer over a composed Reposite: routes only translate between HTTP and services. */
export function createApp(reposite: Reposite, options: AppOptions = {}): H3 {
  const app = new H3({
    // Errors are formatted (and unexpected ones logged) by errorResponse; h3 stays quiet.
    silent: true,
    onError: errorResponse,
  });
  useRepositeForOperations(app, reposite);
  // A verified custom domain's proof for the live check, before its site takes every other path.
  app.use(domainProof(reposite));
  // Site hosts first: they never reach the API's middleware, routes or JSON errors.
  app.use(
    siteRuntime(reposite, {
      dynamic: createSiteDynamicHandler(reposite, {
        trustProxy: options.trustProxy,
        discourse: options.discourse,
      }),
      hostResolvers: options.hostResolvers,
    }),
  );
  app.use((event) => refusePreflight(event));
  healthRoutes(app, reposite);
  tlsAskRoutes(app, reposite);
  edgeFeedRoutes(app, reposite);
  homeRoutes(app, reposite);
  openApiRoutes(app, reposite);
  designRoutes(app);
  projectRoutes(app, reposite);
  agentRoutes(app, reposite, options);
  tokenRoutes(app, reposite);
  repohostRoutes(app, reposite);
  repoCheckRoutes(app, reposite);
  generationRoutes(app, reposite);
  jobRoutes(app, reposite);
  pageVersionRoutes(app, reposite);
  publishingRoutes(app, reposite);
  deploymentRoutes(app, reposite);
  deploymentFixRoutes(app, reposite);
  deploymentOperationRoutes(app, reposite);
  appScreenRoutes(app, reposite);
  billingRoutes(app, reposite);
  domainRoutes(app, reposite);
  memberRoutes(app, reposite);
  if (options.discourse) discourseRoutes(app, reposite, options.discourse);
  accountPageRoutes(app, reposite, options);
  billingPageRoutes(app, reposite);
  agentPageRoutes(app, reposite);
  adminPageRoutes(app, reposite);
  return app;
}
