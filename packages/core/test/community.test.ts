import { createHmac } from "node:crypto";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildDiscourseResponse,
  createReposite,
  discourseLoginUrl,
  discourseUsername,
  DESIGNS,
  FORUM_POSTS_PER_MEMBER,
  html,
  plainTextHtml,
  renderSitePage,
  ForumService,
  POST_BODY_MAX,
  signDiscoursePayload,
  THREAD_TITLE_MAX,
  verifyDiscourseRequest,
  type Clock,
  type MemberView,
  type Reposite,
  type SiteContext,
} from "../src/index.js";

describe("built-in forum", () => {
  let reposite: Reposite;
  let forum: ForumService;
  let offset = 0;
  const clock: Clock = { now: () => new Date(Date.UTC(2026, 2, 1, 9, 0, 0) + offset) };
  const site = { site_id: "site_forum", community: true };
  const closed = { site_id: "site_forum", community: false };
  const member = (name: string, siteId = site.site_id): MemberView => ({
    id: `member_${name}`,
    site_id: siteId,
    email: `${name}@example.com`,
    created_at: "2026-03-01 08:00:00",
    last_sign_in_at: null,
  });
  const ada = member("ada");
  const bob = member("bob");

  beforeAll(() => {
    reposite = createReposite({ storage: createStorage(), clock });
    forum = reposite.container.resolve(ForumService);
  });
  afterAll(() => reposite.close());

  it("lets signed-in members of the site start threads, shown by name and never by email", async () => {
    const thread = await forum.createThread(site, ada, { title: "  How do I start?  ", body: "I installed it.\n\nWhat next?" });
    expect(thread).toEqual({
      id: expect.stringMatching(/^thread_/),
      title: "How do I start?",
      body: "I installed it.\n\nWhat next?",
      author_name: "ada",
      created_at: "2026-03-01 09:00:00",
      last_activity_at: "2026-03-01 09:00:00",
      reply_count: 0,
    });
    expect(JSON.stringify(thread)).not.toMatch(/example\.com|member_/);
  });

  it("refuses visitors, members of other sites, and sites without a community", async () => {
    await expect(forum.createThread(site, null, { title: "Hi", body: "Hello" })).rejects.toMatchObject({ status: 401, code: "sign_in_required" });
    await expect(forum.createThread(site, member("eve", "site_other"), { title: "Hi", body: "Hello" })).rejects.toMatchObject({
      status: 403,
      code: "not_a_member",
    });
    await expect(forum.createThread(closed, ada, { title: "Hi", body: "Hello" })).rejects.toMatchObject({ status: 404, code: "community_closed" });
    await expect(forum.listThreads(closed)).rejects.toMatchObject({ status: 404, code: "community_closed" });
    const [first] = await forum.listThreads(site);
    await expect(forum.reply(site, null, first!.id, { body: "me too" })).rejects.toMatchObject({ status: 401 });
    await expect(forum.getThread(closed, first!.id)).rejects.toMatchObject({ status: 404 });
  });

  it("limits titles to 200 and posts to 20,000 characters, and refuses empty ones", async () => {
    await expect(forum.createThread(site, ada, { title: "t".repeat(THREAD_TITLE_MAX + 1), body: "x" })).rejects.toMatchObject({
      status: 422,
      message: "title: a title may have at most 200 characters",
    });
    await expect(forum.createThread(site, ada, { title: "ok", body: "b".repeat(POST_BODY_MAX + 1) })).rejects.toMatchObject({
      status: 422,
      message: "body: a post may have at most 20,000 characters",
    });
    await expect(forum.createThread(site, ada, { title: "   ", body: "x" })).rejects.toMatchObject({ status: 422, message: "title: a title is required" });
    const [first] = await forum.listThreads(site);
    await expect(forum.reply(site, ada, first!.id, { body: " \n " })).rejects.toMatchObject({ status: 422, message: "body: write something" });
    const longest = await forum.createThread(site, ada, { title: "t".repeat(THREAD_TITLE_MAX), body: "b".repeat(POST_BODY_MAX) });
    expect(longest.body).toHaveLength(POST_BODY_MAX);
  });

  it("keeps replies oldest first and lists threads newest-active first", async () => {
    offset += 60_000;
    const older = await forum.createThread(site, bob, { title: "Older thread", body: "first" });
    offset += 60_000;
    const newer = await forum.createThread(site, ada, { title: "Newer thread", body: "second" });
    expect((await forum.listThreads(site)).slice(0, 2).map((t) => t.title)).toEqual(["Newer thread", "Older thread"]);

    offset += 60_000;
    await forum.reply(site, ada, older.id, { body: "A reply brings it back up." });
    offset += 60_000;
    await forum.reply(site, bob, older.id, { body: "And another." });
    const list = await forum.listThreads(site);
    expect(list.slice(0, 2).map((t) => t.title)).toEqual(["Older thread", "Newer thread"]);
    expect(list[0]).toMatchObject({ reply_count: 2, last_activity_at: "2026-03-01 09:04:00", created_at: "2026-03-01 09:01:00" });

    const { thread, replies } = await forum.getThread(site, older.id);
    expect(thread.title).toBe("Older thread");
    expect(replies.map((r) => [r.author_name, r.body])).toEqual([
      ["ada", "A reply brings it back up."],
      ["bob", "And another."],
    ]);
    expect(JSON.stringify(replies)).not.toMatch(/example\.com|member_/);
    expect(newer.reply_count).toBe(0);
  });

  it("answers 404 for unknown or malformed thread ids", async () => {
    await expect(forum.getThread(site, "thread_nope")).rejects.toMatchObject({ status: 404, code: "thread_not_found" });
    await expect(forum.getThread(site, "../../members")).rejects.toMatchObject({ status: 404 });
    await expect(forum.reply(site, ada, "thread_nope", { body: "hello" })).rejects.toMatchObject({ status: 404 });
    // Another site's forum does not see this one's threads.
    const [first] = await forum.listThreads(site);
    await expect(forum.getThread({ site_id: "site_other", community: true }, first!.id)).rejects.toMatchObject({ status: 404 });
  });

  it("slows down a member who floods the forum", async () => {
    const carol = member("carol");
    const thread = await forum.createThread(site, carol, { title: "Flood", body: "1" });
    for (let i = 1; i < FORUM_POSTS_PER_MEMBER.max; i++) await forum.reply(site, carol, thread.id, { body: `${i + 1}` });
    await expect(forum.reply(site, carol, thread.id, { body: "one too many" })).rejects.toMatchObject({ status: 429, code: "rate_limited" });
    await expect(forum.reply(site, ada, thread.id, { body: "others still can" })).resolves.toMatchObject({ author_name: "ada" });
  });
});

describe("DiscourseConnect", () => {
  const discourse = { url: "https://forum.example.com", secret: "d836444a9e4084d5b224a60c208dce14" };
  /** A request the way Discourse makes one: base64 of the query string, and the hex HMAC-SHA256 of that base64 text. */
  const request = (fields: Record<string, string>, secret = discourse.secret) => {
    const sso = Buffer.from(new URLSearchParams(fields).toString()).toString("base64");
    return { sso, sig: createHmac("sha256", secret).update(sso).digest("hex") };
  };
  const fields = { nonce: "cb68251eefb5211e58c00ff1395f0c0b", return_sso_url: "https://forum.example.com/session/sso_login" };

  it("signs payloads as the published reference vector does", () => {
    // From the discourse-sso package's own test (secret, payload and sig as published there).
    const payload = "bm9uY2U9dmVyeV93b3dfbXVjaF9iYXNlNjRfc29fcXVlcnk=";
    expect(signDiscoursePayload(payload, "much secret, very wow")).toBe("6648376284f212b08cc66f18fc8a8f188bcf16072944add79be71939a3c8b218");
  });

  it("verifies a payload signed with the shared secret and reads nonce and return_sso_url", () => {
    const { sso, sig } = request(fields);
    // The vector, computed independently: the exact base64 text and hex digest of this payload.
    expect(sso).toBe(Buffer.from(`nonce=${fields.nonce}&return_sso_url=https%3A%2F%2Fforum.example.com%2Fsession%2Fsso_login`).toString("base64"));
    expect(sig).toBe(createHmac("sha256", discourse.secret).update(sso, "utf8").digest("hex"));
    expect(verifyDiscourseRequest(sso, sig, discourse)).toEqual({ nonce: fields.nonce, returnSsoUrl: fields.return_sso_url });
    expect(verifyDiscourseRequest(sso, sig.toUpperCase(), discourse).nonce).toBe(fields.nonce);
  });

  it("rejects a bad signature, a payload signed with another secret, and foreign return addresses", () => {
    const { sso, sig } = request(fields);
    const flipped = `${sig.slice(0, -1)}${sig.endsWith("0") ? "1" : "0"}`;
    expect(() => verifyDiscourseRequest(sso, flipped, discourse)).toThrow(expect.objectContaining({ status: 403, code: "invalid_sso_signature" }));
    const other = request(fields, "another secret entirely");
    expect(() => verifyDiscourseRequest(other.sso, other.sig, discourse)).toThrow(expect.objectContaining({ code: "invalid_sso_signature" }));
    expect(() => verifyDiscourseRequest(sso, "abc", discourse)).toThrow(expect.objectContaining({ status: 400, code: "invalid_sso_request" }));
    expect(() => verifyDiscourseRequest(null, sig, discourse)).toThrow(expect.objectContaining({ status: 400 }));
    // Tampering with the payload breaks the signature.
    const tampered = request({ ...fields, return_sso_url: "https://evil.example/session/sso_login" });
    expect(() => verifyDiscourseRequest(tampered.sso, sig, discourse)).toThrow(expect.objectContaining({ code: "invalid_sso_signature" }));
    // Even correctly signed, an answer is never sent to another host than the forum.
    expect(() => verifyDiscourseRequest(tampered.sso, tampered.sig, discourse)).toThrow(expect.objectContaining({ status: 400 }));
    const noNonce = request({ return_sso_url: fields.return_sso_url });
    expect(() => verifyDiscourseRequest(noNonce.sso, noNonce.sig, discourse)).toThrow(/no nonce/);
  });

  it("answers with a signed payload carrying nonce, email, external_id, username and name", () => {
    const verified = verifyDiscourseRequest(request(fields).sso, request(fields).sig, discourse);
    const user = { external_id: "member_42", email: "ada@example.com", username: discourseUsername("ada.lovelace+forum@example.com"), name: "ada" };
    const answer = buildDiscourseResponse(verified, user, discourse.secret);
    const url = new URL(answer.url);
    expect(`${url.origin}${url.pathname}`).toBe(fields.return_sso_url);
    expect(url.searchParams.get("sso")).toBe(answer.sso);
    expect(url.searchParams.get("sig")).toBe(answer.sig);
    expect(answer.sig).toBe(createHmac("sha256", discourse.secret).update(answer.sso).digest("hex"));
    const payload = new URLSearchParams(Buffer.from(answer.sso, "base64").toString("utf8"));
    expect(Object.fromEntries(payload)).toEqual({
      nonce: fields.nonce,
      email: "ada@example.com",
      external_id: "member_42",
      username: "ada.lovelace_forum",
      name: "ada",
      require_activation: "true",
    });
  });

  it("makes Discourse usernames and the forum's sign-in address", () => {
    expect(discourseUsername("x@example.com")).toBe("x_member");
    expect(discourseUsername("josé@example.com")).toBe("jose");
    expect(discourseUsername("-_-@example.com")).toBe("member");
    expect(discourseUsername("a-very-long-local-part-indeed@example.com")).toBe("a-very-long-local-pa");
    expect(discourseUsername("dots..and__dashes-@example.com")).toBe("dots_and_dashes");
    expect(discourseLoginUrl(discourse)).toBe("https://forum.example.com/session/sso?return_path=%2F");
    expect(discourseLoginUrl({ url: "https://example.com/forum/" }, "/latest")).toBe("https://example.com/forum/session/sso?return_path=%2Flatest");
  });
});

describe("forum pages in the site's design", () => {
  const site: SiteContext = {
    name: "Rocket <CLI>",
    logoUrl: "",
    colorMode: "",
    type: "website",
    repositoryUrl: "https://github.com/acme/rocket-cli",
    appPath: "/app/",
    pages: ["template", "about", "auth"],
    community: true,
    year: 2026,
  };

  it("puts the body in every design's frame, with the design's menu and the page's title", () => {
    for (const design of DESIGNS) {
      const page = renderSitePage(design, site, { title: "Community $& 404", bodyHtml: html`<h1>Community</h1><p>${"<script>x</script>"}</p>`, noindex: true });
      expect(page, design.id).toContain("<title>Community $&amp; 404 · Rocket &lt;CLI&gt;</title>");
      expect(page, design.id).toContain('<meta name="robots" content="noindex">');
      expect(page, design.id).toMatch(/<main id="main"[^>]*><div class="wrap site-page"><h1>Community<\/h1><p>&lt;script&gt;x&lt;\/script&gt;<\/p><\/div><\/main>/);
      expect(page, design.id).toContain(`<body class="page-site design-${design.id} `);
      expect(page, design.id).toContain('href="/community"');
      expect(page, design.id).toContain(`--bg:${design.look.palette.background}`);
      expect(page, design.id).not.toContain("Page not found");
      expect(page, design.id).not.toContain("<script>");
    }
  });

  it("turns what a person wrote into escaped paragraphs", () => {
    expect(plainTextHtml("one <b>\r\ntwo\n\n\nthree").toString()).toBe("<p>one &lt;b&gt;<br>two</p><p>three</p>");
    expect(plainTextHtml("  \n ").toString()).toBe("");
  });
});
