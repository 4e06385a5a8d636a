import { startFakeGitHub } from "@reposite/test-support";
import { expect, it } from "vitest";
import { describeRepository } from "./embed.js";

it("embeds the core with its own storage and makes a project without HTTP", async () => {
  const github = await startFakeGitHub({ repos: [{ owner: "acme", name: "ledger", description: "Double-entry accounting", topics: ["finance"] }] });
  try {
    const result = await describeRepository("github.com/acme/ledger", { github: { apiUrl: github.url, webHosts: ["github.com"] } });
    expect(result).toMatchObject({ name: "ledger", repository: "https://github.com/acme/ledger" });
    expect(result.design).toMatch(/^[a-z-]+$/);
  } finally {
    await github.close();
  }
});
