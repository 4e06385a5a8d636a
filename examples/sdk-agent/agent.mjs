// An AI agent or script logs in to Reposite: the person opens a link, signs in and reads out a
// code; the agent trades it for a token and works as that person.
import { createInterface } from "node:readline/promises";
import { createClient } from "@reposite/sdk";

const baseURL = process.env.REPOSITE_URL ?? "http://localhost:3000";
const anonymous = createClient({ baseURL });
const login = await anonymous.agent.login({ client: "sdk-agent example", email: process.env.REPOSITE_EMAIL });
console.log(login.next_step);
if (!login.email_sent) console.log(`Open: ${login.verification_url}`);

const prompt = createInterface({ input: process.stdin, output: process.stdout });
const code = await prompt.question("Code shown on the page (ABCD-EFGH): ");
prompt.close();

const { token, user } = await login.complete(code);
const client = createClient({ baseURL, token });
console.log(`Signed in as ${user.email}. Projects:`);
for (const site of await client.sites.list()) console.log(`- ${site.name} (${site.repohost_url})`);
