import { startFakeGitHub } from "@reposite/test-support";
import { expect, it } from "vitest";
import { describeRepository, inviteToSignIn } from "./embed.js";
import type { PlatformNotification } from "./platform-mailer.js";

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

it("delivers Reposite's mail through the platform's own Mailer (a custom provider)", async () => {
  const delivered: PlatformNotification[] = [];
  const result = await inviteToSignIn("Ada@Example.com", async (notification) => void delivered.push(notification));
  expect(result).toEqual({ sent: true });
  expect(delivered).toHaveLength(1);
  expect(delivered[0]).toMatchObject({ recipient: "ada@example.com", title: "Your Reposite sign-in link", channel: "email" });
  expect(delivered[0]!.body).toContain("Your team added you to the sites platform.");
  expect(delivered[0]!.body).toMatch(/https:\/\/sites\.platform\.example\/account\/sign-in\/confirm\?token=\S+/);
});

it("tells the caller when the platform's delivery fails, instead of claiming it sent", async () => {
  const result = await inviteToSignIn("ada@example.com", async () => {
    throw new Error("notification service down");
  });
  expect(result).toMatchObject({ sent: false, error: expect.any(String) });
});
