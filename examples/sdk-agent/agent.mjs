// An AI agent or script logs in to Reposite: the person opens a link, signs in and reads out a
// code; the agent trades it for a token and works as that person.
import { createInterface } from "node:readline/promises";
import { BadRequestError, createClient } from "@reposite/sdk";

const baseURL = process.env.REPOSITE_URL ?? "http://localhost:3000";
const anonymous = createClient({ baseURL });
const login = await anonymous.agent.login({ client: "sdk-agent example", email: process.env.REPOSITE_EMAIL });
console.log(login.next_step);
if (!login.email_sent) console.log(`Open: ${login.verification_url}`);

const prompt = createInterface({ input: process.stdin, output: process.stdout });
let issued;
while (!issued) {
  const code = await prompt.question("Code shown on the page (ABCD-EFGH): ");
  try {
    issued = await login.complete(code);
  } catch (error) {
    // A mistyped code may be tried again (5 tries); anything else (expired, declined) ends here.
    if (!(BadRequestError.isInstance(error) && error.code === "invalid_code")) throw error;
    console.log(`That code is not right (${error.body?.attempts_left} tries left).`);
  }
}
prompt.close();

// Keep the token out of URLs, logs and commits: store it where only this user can read it.
const client = createClient({ baseURL, token: issued.token });
console.log(`Signed in as ${issued.user.email}. Projects:`);
for (const site of await client.sites.list()) console.log(`- ${site.name} (${site.repohost_url})`);
