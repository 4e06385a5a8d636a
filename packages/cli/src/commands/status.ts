import { RepositeAPIError, type DeploymentView } from "@reposite/sdk";
import { cliCommand, type CommandEnv } from "../command.js";
import { connect, findSite } from "../connection.js";
import { fields } from "../output.js";
import { printDiagnosis } from "./deploy.js";
import { printSite, SITE_ARG } from "./sites.js";

/** `reposite status <site>`: the site, its app, and why the last deploy failed when it did. */
export function statusCommand(env: CommandEnv) {
  return cliCommand(env, {
    name: "reposite status",
    description: "Show the site, its app's state, and the diagnosis of the last deploy when it failed",
    args: { site: SITE_ARG },
    run: async ({ args, out }) => {
      const { client } = await connect(args.server);
      const site = await findSite(client, args.site);
      let deployment: DeploymentView | null = null;
      if (site.deployment) {
        try {
          deployment = await client.deployment.get(site.id);
        } catch (error) {
          // A server that stopped hosting apps still shows the site.
          if (!(RepositeAPIError.isInstance(error) && error.code === "hosting_unavailable")) throw error;
          out.note("This server does not host apps right now (hosting_unavailable).");
        }
      }
      out.result({ site, deployment }, () => {
        printSite(out, site);
        if (!deployment) return out.line(`\nNo app yet: reposite deploy ${site.slug ?? site.id}`);
        out.line("");
        const run = deployment.last_run;
        const change = deployment.last_operation;
        for (const line of fields([
          ["app", `${deployment.status}${deployment.stopped_reason ? ` (${deployment.stopped_reason})` : ""}`],
          ["app address", deployment.url],
          ["build", `${deployment.build_mode}${deployment.build_mode === "dockerfile" ? ` ${deployment.dockerfile_path}` : ""}, port ${deployment.port}, ref ${deployment.ref}`],
          ["env", deployment.env_keys.length ? deployment.env_keys.join(", ") : "none"],
          ["last deploy", run ? `${run.status}${run.finished_at ? ` at ${run.finished_at} UTC` : ""}${run.reason ? `: ${run.reason}` : ""}` : "none yet"],
          // An env change answers before its restart: how the restart went shows here.
          ...(change ? [["last change", `${change.kind === "env_restart" ? "env restart" : "data reset"} ${change.status.replace("_", " ")}${change.reason ? `: ${change.reason}` : ""}`] as [string, string]] : []),
        ])) out.line(line);
        if (run?.diagnosis) printDiagnosis(out, run.diagnosis);
        if (change?.diagnosis) printDiagnosis(out, change.diagnosis);
      });
    },
  });
}
