// The quick start: the reference server on its embedded defaults, doing its main job — a
// repository link in, a published website out.
// Usage: npm run quickstart [-- <repository link>]
import { request } from "node:http";
import { startServer } from "@reposite/server";
import { createClient } from "@reposite/sdk";

const repository = process.argv[2] ?? "https://github.com/unjs/h3";
const server = await startServer();
const { reposite } = server;
console.log(`Reposite is serving on ${server.url} (data in ${reposite.config.dataDir}).`);

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, async () => {
    await server.close();
    process.exit(0);
  });
}

// A token as an operator would make one with `reposite admin create-token`.
const { account } = await reposite.accounts.findOrCreate("you@example.com");
const { secret } = await reposite.tokens.create(account.id, { name: "quickstart", lifetime: "30d" });
console.log(`\nAPI token for you@example.com (shown once):\n  ${secret}\n`);

const client = createClient({ baseURL: server.url, token: secret });
try {
  const project = await client.sites.create({ repohost_url: repository });
  console.log(`1. Created project ${project.id} "${project.name}" from ${repository} (design: ${project.design}).`);

  const ai = process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL;
  const author = ai ? "the AI" : "the README author (no OPENAI_API_KEY set)";
  const started = await client.sites.generate(project.id, { mode: "website", pages: ["about", "faq", "auth"], community: true });
  console.log(`2. Writing its pages with ${author}:`);
  for (let jobId = started.job_id; jobId; ) {
    const { job } = await client.jobs.wait(jobId);
    console.log(`   ${job.kind ?? "page"}: ${job.status}${job.error ? ` (${job.error})` : ""}`);
    if (job.status !== "done") throw new Error(`the page job ended ${job.status}`);
    jobId = job.next_job_id;
  }

  const { url, pages } = await client.publishing.publish(project.id);
  const site = await client.sites.get(project.id);
  const local = `http://${site.slug}.${reposite.config.sitesDomain}/`;
  const home = await getPage(site.slug);
  console.log(`3. Published ${pages.length} pages (${pages.join(", ")}) at ${url}.`);
  console.log(`   Here it answers ${home.status} "${home.title}"; open ${local} in a browser.`);
  console.log(`   Also: ${local}sitemap.xml, ${local}auth (sign up), ${local}community (the forum).`);
} catch (error) {
  console.log(`Could not make a site from ${repository}: ${error.message}`);
  console.log("(Reading a repository needs GitHub's API; the server keeps serving everything else.)");
}

console.log(`\nTry it yourself:
  curl -H "Authorization: Bearer ${secret}" ${server.url}/app/sites
  open ${reposite.config.baseUrl}/account to sign in (mail goes to ${reposite.config.dataDir}/outbox)
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
