// The quick start: the reference server on its embedded defaults, doing its main job — a
// repository link in, a published website out. Without a link it tries GitHub's unjs/h3 and,
// when GitHub cannot be reached, makes the site from this checkout, so it works offline too.
// Usage: npm run quickstart [-- <repository link>]   or   npm run quickstart -- --local
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import { settingsFromEnv, startServer } from "@reposite/server";
import { createClient } from "@reposite/sdk";

const DEFAULT_LINK = "https://github.com/unjs/h3";
const args = process.argv.slice(2);
const useLocal = args.includes("--local");
const givenLink = args.find((arg) => !arg.startsWith("--"));
// This checkout, read by the local repo host: the operator's REPOSITE_LOCAL_REPOS plus this folder.
const checkout = fileURLToPath(new URL("../..", import.meta.url)).replace(/[\\/]+$/, "");

let server;
try {
  const settings = settingsFromEnv();
  settings.reposite.localRepos = [...(settings.reposite.localRepos ?? []), checkout];
  server = await startServer({ settings });
} catch (error) {
  console.error(`The server could not start: ${error.message}`);
  process.exit(1);
}
const { reposite } = server;
console.log(`Reposite is serving on ${server.url} (data in ${reposite.config.dataDir}).`);

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, async () => {
    await server.close();
    process.exit(0);
  });
}

// A token as an operator makes one with `reposite admin create-token`.
const { account } = await reposite.accounts.findOrCreate("you@example.com");
const { secret } = await reposite.tokens.create(account.id, { name: "quickstart", lifetime: "30d", source: "operator" });
console.log(`\nAPI token for you@example.com (shown once):\n  ${secret}\n`);

const client = createClient({ baseURL: server.url, token: secret });
let link = useLocal ? checkout : (givenLink ?? DEFAULT_LINK);
try {
  let project;
  try {
    project = await client.sites.create({ repohost_url: link });
  } catch (error) {
    // Only the default link falls back: a link someone gave is the one they want.
    if (useLocal || givenLink) throw error;
    console.log(`Could not read ${link} from GitHub: ${error.message}`);
    link = checkout;
    console.log(`Making the site from this checkout instead: ${link}\n`);
    project = await client.sites.create({ repohost_url: link });
  }
  console.log(`1. Created project ${project.id} "${project.name}" from ${project.repohost_url} (design: ${project.design}).`);

  const ai = process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL;
  const author = ai ? "the AI" : "the README author (no OPENAI_API_KEY set)";
  const started = await client.sites.generate(project.id, { mode: "website", pages: ["about", "faq", "auth"], community: true });
  console.log(`2. Writing its pages with ${author}:`);
  for (let jobId = started.job_id; jobId; ) {
    const { job } = await client.jobs.wait(jobId);
    // A page the author declines ends done without a version: an FAQ is only written from the README's own questions.
    const skipped = job.status === "done" && job.version_id === null ? ", no page made (the README asks no question to answer)" : "";
    console.log(`   ${job.kind ?? "page"}: ${job.status}${skipped}${job.error ? ` (${job.error})` : ""}`);
    if (job.status !== "done") throw new Error(`the page job ended ${job.status}${job.error ? `: ${job.error}` : ""}`);
    jobId = job.next_job_id;
  }

  const { url, pages } = await client.publishing.publish(project.id);
  const site = await client.sites.get(project.id);
  const local = `http://${site.slug}.${reposite.config.sitesDomain}/`;
  const home = await getPage(site.slug);
  if (home.status !== 200) throw new Error(`the published site answered ${home.status} at ${local}`);
  console.log(`3. Published ${pages.length} pages (${pages.join(", ")}) at ${url}.`);
  console.log(`   Here it answers ${home.status} "${home.title}"; open ${local} in a browser.`);
  console.log(`   Also: ${local}sitemap.xml, ${local}auth (sign up), ${local}community (the forum).`);
} catch (error) {
  console.error(`\nNo site could be made from ${link}: ${error.message}`);
  if (!useLocal) console.error("Reading a GitHub repository needs GitHub's API; `npm run quickstart -- --local` uses this checkout instead.");
  await server.close();
  process.exit(1);
}

console.log(`\nTry it yourself:
  curl -H "Authorization: Bearer ${secret}" ${server.url}/app/sites
  REPOSITE_URL=${server.url} REPOSITE_TOKEN=${secret} npx reposite sites list
  open ${reposite.config.baseUrl}/ for what this server offers, and ${reposite.config.baseUrl}/account to sign in (mail goes to ${reposite.config.dataDir}/outbox)
Press Ctrl-C to stop.`);

/** The site's home page through the server, with the Host a browser sends for `<slug>.<sites domain>`. */
function getPage(slug) {
  const { port, hostname } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path: "/", headers: { host: `${slug}.${reposite.config.sitesDomain}` } }, (res) => {
      let html = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (html += chunk));
      res.on("end", () => resolve({ status: res.statusCode, title: /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? "" }));
    });
    req.on("error", reject);
    req.end();
  });
}
