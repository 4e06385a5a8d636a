// From a repository to a live product site and a running app, with the SDK:
// create the project, generate its pages (following each page's job), publish the site, read the
// repository to choose how to build it, set the app up, deploy it following the build log, and
// fetch the app at /app/.
//
//   REPOSITE_URL=https://reposite.example REPOSITE_TOKEN=rps_… node site-and-app.mjs https://github.com/you/your-app
import { randomBytes } from "node:crypto";
import { lookup } from "node:dns";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { createClient } from "@reposite/sdk";

const repository = process.argv[2];
if (!repository) {
  console.error("Usage: node site-and-app.mjs <repository link>   (REPOSITE_URL and REPOSITE_TOKEN in the environment)");
  process.exit(2);
}
const client = createClient({ baseURL: process.env.REPOSITE_URL ?? "http://localhost:3000", token: process.env.REPOSITE_TOKEN });

// 1. The project, and its pages: a product (saas) site whose buttons open the app at /app/.
const site = await client.sites.create({ repohost_url: repository });
console.log(`Project ${site.name} (${site.id})`);
const { job_id } = await client.sites.generate(site.id, { mode: "saas", pages: ["about"] });
const pages = await client.jobs.followChain(job_id, {
  onEvent: (event) => event.type === "done" && console.log(`  page written: ${event.job.kind}`),
});
const last = pages.at(-1);
if (last.status !== "done") throw new Error(`Generation ended ${last.status}: ${last.error}`);

// 2. The site goes live (it gets an address from its name).
const published = await client.publishing.publish(site.id);
console.log(`Site live at ${published.url}`);

// 3. How to build the app: the repository's Dockerfile when it has one, else the way its framework builds.
const check = await client.deployment.repoCheck(site.id);
const setup = check.dockerfile
  ? { build_mode: "dockerfile", port: check.analysis?.expose[0] ?? 3000 }
  : check.dockerfile_found
    ? { build_mode: "dockerfile", dockerfile_path: check.dockerfile_found.path }
    : check.auto.found
      ? { build_mode: "auto" }
      : null;
if (!setup) throw new Error(`Reposite cannot build this repository by itself: ${check.auto.reason}`);
console.log(`Building with ${setup.build_mode}${check.auto.found ? ` (${check.auto.name})` : ""}`);
await client.deployment.setup(site.id, setup);

// Settings the app asks for: ready values, and long random strings where any will do.
// Secrets only the owner has are left to them (client.deployment.env.set).
const env = {};
for (const variable of check.setup.vars) {
  if (variable.input === "auto" && variable.value) env[variable.name] = variable.value;
  if (variable.input === "generate") env[variable.name] = randomBytes(32).toString("hex");
}
if (Object.keys(env).length > 0) await client.deployment.env.set(site.id, env);

// 4. Deploy, printing the build log as it comes; the deployment is read once the deploy ended.
const app = await client.deployment.deployAndFollow(site.id, {
  onEvent: (event) => event.type === "delta" && process.stdout.write(event.t),
});
if (app.status !== "running") {
  const diagnosis = app.last_run?.diagnosis;
  console.error(`The app did not start (${app.status}). ${diagnosis ? `${diagnosis.title}: ${diagnosis.detail} ${diagnosis.fix}` : ""}`);
  process.exit(1);
}
console.log(`App running at ${app.url}`);

// 5. The app answers through /app/ on the site's address.
const answer = await get(app.url);
console.log(`GET ${app.url} -> ${answer.status}`);
console.log(answer.body.slice(0, 500));

/**
 * A GET with node:http(s). Names under `localhost` (a server on your own machine gives sites
 * addresses like http://my-app.localhost:3000) go to the loopback address, as browsers do.
 */
function get(url) {
  const { hostname, protocol } = new URL(url);
  const loopback = hostname === "localhost" || hostname.endsWith(".localhost");
  const resolve = (name, options, callback) =>
    loopback ? (options.all ? callback(null, [{ address: "127.0.0.1", family: 4 }]) : callback(null, "127.0.0.1", 4)) : lookup(name, options, callback);
  return new Promise((done, fail) => {
    const request = (protocol === "https:" ? httpsRequest : httpRequest)(url, { lookup: resolve }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => (body += chunk));
      response.on("end", () => done({ status: response.statusCode, body }));
    });
    request.on("error", fail);
    request.end();
  });
}
