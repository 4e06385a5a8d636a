// The quick start: the reference server on its embedded defaults, doing its main job.
// Usage: npm run quickstart [-- <repository link>]
import { startServer } from "@reposite/server";
import { createClient } from "@reposite/sdk";

const repository = process.argv[2] ?? "https://github.com/unjs/h3";
const server = await startServer();
const { reposite } = server;
console.log(`Reposite is serving on ${server.url} (data in ${reposite.config.dataDir}).`);

// A token as an operator would make one with `reposite admin create-token`.
const { account } = await reposite.accounts.findOrCreate("you@example.com");
const { secret } = await reposite.tokens.create(account.id, { name: "quickstart", lifetime: "30d" });
console.log(`\nAPI token for you@example.com (shown once):\n  ${secret}\n`);

const client = createClient({ baseURL: server.url, token: secret });
try {
  const project = await client.sites.create({ repohost_url: repository });
  console.log(`Created a project from ${repository}:`);
  console.log(JSON.stringify(project, null, 2));
} catch (error) {
  console.log(`Could not create a project from ${repository}: ${error.message}`);
  console.log("(The server needs to reach GitHub's API for that; everything else keeps working.)");
}

console.log(`\nTry it yourself:
  curl -H "Authorization: Bearer ${secret.slice(0, 8)}…" ${server.url}/app/sites
  open ${reposite.config.baseUrl}/account to sign in (mail goes to ${reposite.config.dataDir}/outbox)
Press Ctrl-C to stop.`);

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, async () => {
    await server.close();
    process.exit(0);
  });
}
