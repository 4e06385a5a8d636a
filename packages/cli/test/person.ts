import type { Reposite } from "@reposite/core";

/**
 * The person's side of agent login, over HTTP as a browser does it: signed in (a session cookie),
 * they open the link, press Continue, and read the code the page shows.
 */
export async function personReadsCode(reposite: Reposite, serverUrl: string, verificationUrl: string, email: string): Promise<string> {
  const { account } = await reposite.accounts.findOrCreate(email);
  const cookie = `reposite_session=${(await reposite.sessions.create(account.id)).secret}`;
  // The link names the service's public address; this test reaches the same server on its socket.
  const path = new URL(verificationUrl).pathname;
  const page = await (await fetch(`${serverUrl}${path}`, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!csrf) throw new Error(`no form on the verify page:\n${page}`);
  const continued = await fetch(`${serverUrl}${path}/continue`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, origin: serverUrl, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrf }).toString(),
  });
  if (continued.status !== 303) throw new Error(`Continue answered ${continued.status}: ${await continued.text()}`);
  const withCode = await (await fetch(`${serverUrl}${path}`, { headers: { cookie } })).text();
  const code = /id="login-code"[^>]*>([^<]+)</.exec(withCode)?.[1]?.trim();
  if (!code) throw new Error(`no code on the page:\n${withCode}`);
  return code;
}
