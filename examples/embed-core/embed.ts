// A platform team embeds Reposite's core: their own storage (here unstorage's memory driver; in
// production a redis or db0 driver), their own repo host settings, and direct calls to services.
import { createReposite, type CreateRepositeOptions } from "@reposite/core";
import { createStorage } from "unstorage";

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

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await describeRepository(process.argv[2] ?? "https://github.com/unjs/h3"));
}
