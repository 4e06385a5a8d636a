// A platform team embeds Reposite's core: their own storage (here unstorage's memory driver; in
// production a redis or db0 driver), their own mail delivery (a Mailer of their own, see
// platform-mailer.ts), their own repo host settings, and direct calls to services, no HTTP.
import { createReposite, type CreateRepositeOptions } from "@reposite/core";
import { createStorage } from "unstorage";
import { createPlatformMailer, type PlatformNotification } from "./platform-mailer.js";

export async function describeRepository(repositoryLink: string, options: Partial<CreateRepositeOptions> = {}) {
  const reposite = createReposite({ storage: createStorage(), ...options });
  try {
    const { account } = await reposite.accounts.findOrCreate("platform-bot@example.com");
    const project = await reposite.projects.create(account.id, { repohost_url: repositoryLink });
    return { name: project.name, design: project.design, repository: project.repohost_url };
  } finally {
    await reposite.close();
  }
}

/**
 * Invites a person to sign in: Reposite writes the sign-in mail, the platform's notification
 * service delivers it. Answers what Reposite said and what the platform was handed.
 */
export async function inviteToSignIn(email: string, notify: (notification: PlatformNotification) => Promise<void>) {
  const reposite = createReposite({
    storage: createStorage(),
    mailer: createPlatformMailer(notify),
    config: { baseUrl: "https://sites.platform.example" },
  });
  try {
    return await reposite.signInLinks.send(email, { intro: "Your team added you to the sites platform." });
  } finally {
    await reposite.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await describeRepository(process.argv[2] ?? "https://github.com/unjs/h3"));
  console.log(await inviteToSignIn("ada@example.com", async (notification) => console.log("notification:", notification)));
}
