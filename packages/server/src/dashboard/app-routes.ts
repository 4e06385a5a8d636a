import type { RepoCheckResult } from "@reposite/contract";
import { DEFAULT_SETUP, RepositeError, type Reposite } from "@reposite/core";
import { getQuery, type H3 } from "h3";
import { seeOther } from "../http/page-route.js";
import { dashboardDocument, type Said } from "./dashboard-frame.js";
import { dashboardPaths } from "./dashboard-paths.js";
import { dashboardForm, dashboardScreen, type DashboardRequest } from "./dashboard-route.js";
import { html } from "../pages/html.js";
import { pageResponse } from "../pages/layout.js";
import { appScreenPolicy } from "../pages/app-screen-policy.js";
import { BUY_PATHS, checkoutBody } from "./app-billing-section.js";
import { envInputOf } from "./app-env-section.js";
import { jobToFollow } from "./app-runs-section.js";
import { appScreen } from "./app-screen.js";
import { setupFields, setupInputOf, type SetupFields } from "./app-setup-section.js";

/** Confirmations after a form's redirect, by `?done=`. */
const NOTICES: Record<string, string> = {
  setup: "The setup was saved. It applies at the next deploy (port, health path and volume at the next restart).",
  env: "Saved. A running app restarts with it; values are never shown again.",
  deploy: "The deploy started: its log follows below.",
  fix: "A fix was started: its log follows below, and its runs appear as they go.",
  restart: "The app was restarted.",
  stop: "The app was stopped.",
  start: "The app was started.",
  reset: "The data was emptied and the app started clean.",
  deleted: "The app was deleted: its containers, image, data and env are gone.",
};

/** A read that answers `409` (nothing there yet) shows as none. */
const orNone = <T>(read: Promise<T>): Promise<T | null> =>
  read.catch((error: unknown) => {
    if (RepositeError.isInstance(error) && error.status === 409) return null;
    throw error;
  });

/** A job id from the query, when it looks like one (the stream itself checks it is the person's). */
const jobParam = (value: unknown): string | null => (typeof value === "string" && /^[\w-]{1,100}$/.test(value) ? value : null);

/**
 * The App screen: everything the app operations do, for the site's owner in a browser. Every form
 * calls the same core method as the API's route, whose contract schema judges the input.
 */
export function dashboardAppRoutes(app: H3, reposite: Reposite): void {
  const path = dashboardPaths.app(":site_id");

  const draw = async (request: DashboardRequest, said: Said, typed?: SetupFields, status = 200): Promise<Response> => {
    const { ownerId } = request;
    const siteId = request.param("site_id");
    const project = await reposite.projects.get(ownerId, siteId);
    const query = getQuery(request.event);
    let deployment = null;
    let hostingError: string | null = null;
    try {
      deployment = await orNone(reposite.hosting.read(ownerId, siteId));
    } catch (error) {
      if (!RepositeError.isInstance(error) || error.status !== 503) throw error;
      hostingError = error.message;
    }
    const [runs, resources, hosting] = await Promise.all([
      deployment ? reposite.hosting.listRuns(ownerId, siteId) : [],
      deployment ? orNone(reposite.hosting.resources(ownerId, siteId)) : null,
      reposite.billing.status(ownerId, "embed", siteId),
    ]);
    let check: RepoCheckResult | null = null;
    let checkError: string | null = null;
    if (query.check === "1") {
      const setup = deployment ?? null;
      try {
        check = await reposite.repoCheck.check(ownerId, siteId, {
          ...(setup && setup.ref !== "HEAD" ? { ref: setup.ref } : {}),
          ...(setup ? { path: setup.dockerfile_path } : {}),
          ...(setup?.root_dir ? { root_dir: setup.root_dir } : {}),
        });
      } catch (error) {
        if (!RepositeError.isInstance(error) || (error.status >= 500 && error.status !== 502 && error.status !== 503)) throw error;
        checkError = error.message;
      }
    }
    const screenPath = dashboardPaths.app(siteId);
    const body = hostingError
      ? null
      : appScreen({
          siteId,
          name: project.name,
          path: screenPath,
          csrf: request.session.csrf,
          deployment,
          runs,
          resources,
          hosting,
          check,
          checkError,
          follow: deployment ? jobToFollow(runs, jobParam(query.job)) : null,
          streamPath: (jobId) => dashboardPaths.jobStream(siteId, jobId),
          typed,
        });
    const document = dashboardDocument({
      title: `${project.name}: app`,
      session: request.session,
      site: { id: siteId, name: project.name, section: "app" },
      ...said,
      body: body ?? html`<h1>App</h1><p>${hostingError}</p>`,
    });
    const terminal = deployment?.build_mode === "bare";
    // With payments on, a Buy button's answer is the payment provider's page: forms may leave.
    const policy = appScreenPolicy(reposite.config.baseUrl, { terminal, formsLeave: reposite.billing.enabled });
    return pageResponse(document, status, { "content-security-policy": policy });
  };

  dashboardScreen(app, reposite, path, (request, said) => draw(request, said), NOTICES);

  /** A form whose service call answers nothing to show: back to the screen with its notice. */
  const action = (name: string, act: (request: DashboardRequest, form: URLSearchParams) => Promise<unknown>, done = name) =>
    dashboardForm(
      app,
      reposite,
      `${path}/${name}`,
      async (request, form) => {
        await act(request, form);
        return seeOther(`${dashboardPaths.app(request.param("site_id"))}?done=${done}`);
      },
      draw,
    );

  // The setup comes back with what was typed when it is refused, next to the error.
  dashboardForm(
    app,
    reposite,
    `${path}/setup`,
    async (request, form) => {
      const siteId = request.param("site_id");
      const input = setupInputOf(form);
      try {
        await reposite.hosting.setup(request.ownerId, siteId, input);
      } catch (error) {
        if (!RepositeError.isInstance(error) || error.status !== 422) throw error;
        const typed = setupFields((await orNone(reposite.hosting.read(request.ownerId, siteId))) ?? DEFAULT_SETUP);
        for (const name of Object.keys(typed) as (keyof SetupFields)[]) typed[name] = (form.get(name) ?? "").trim();
        return draw(request, { error: error.message }, typed, 422);
      }
      return seeOther(`${dashboardPaths.app(siteId)}?done=setup`);
    },
    draw,
  );

  action("env", (request, form) => reposite.hosting.setEnv(request.ownerId, request.param("site_id"), envInputOf(form)));
  action("restart", (request) => reposite.hosting.restart(request.ownerId, request.param("site_id")));
  action("stop", (request) => reposite.hosting.stop(request.ownerId, request.param("site_id")));
  action("start", (request) => reposite.hosting.start(request.ownerId, request.param("site_id")));
  action("reset-data", (request, form) => reposite.appOperations.resetData(request.ownerId, request.param("site_id"), { confirm: form.get("confirm") }), "reset");
  action("delete", (request) => reposite.hosting.remove(request.ownerId, request.param("site_id")), "deleted");

  // Deploy and Fix start a job: the screen follows its log live.
  const started = (name: string, start: (ownerId: string, siteId: string) => Promise<{ job_id: string }>) =>
    dashboardForm(
      app,
      reposite,
      `${path}/${name}`,
      async (request) => {
        const siteId = request.param("site_id");
        let job_id: string;
        try {
          ({ job_id } = await start(request.ownerId, siteId));
        } catch (error) {
          // No model on this server for this failure (503 ai_not_configured) is said on the screen, like a refusal.
          if (!RepositeError.isInstance(error) || error.status !== 503) throw error;
          return draw(request, { error: error.message }, undefined, 503);
        }
        return seeOther(`${dashboardPaths.app(siteId)}?done=${name}&job=${encodeURIComponent(job_id)}`);
      },
      draw,
    );
  started("deploy", (ownerId, siteId) => reposite.hosting.deploy(ownerId, siteId));
  started("fix", (ownerId, siteId) => reposite.appFixer.fix(ownerId, siteId));

  // Buy buttons: the checkout `POST /billing/{product}/checkout` starts, answered with its payment page.
  for (const product of ["embed", "memory", "disk"] as const) {
    dashboardForm(
      app,
      reposite,
      `${path}/${BUY_PATHS[product]}`,
      async (request, form) => {
        const { url } = await reposite.billing.checkout(request.ownerId, product, checkoutBody(product, request.param("site_id"), form));
        return seeOther(url);
      },
      draw,
    );
  }
}
