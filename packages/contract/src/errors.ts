/**
 * Every `code` an error answer of Reposite may carry: its status and when it is answered. The one
 * list: core's `RepositeError` only takes a code from it, the server formats errors with it, the
 * SDK's `ApiErrorCode` is its key type, `/openapi.json` lists its codes in the `Error` schema and
 * docs/http-api.md's table of every code is checked against it. This file has no imports, so
 * clients can load it without zod (`@reposite/contract/errors`).
 */
export interface ErrorCodeInfo {
  /** The status the code is answered with. */
  readonly status: number;
  /** Statuses some routes answer the same code with (one meaning, more than one place). */
  readonly alsoStatus?: readonly number[];
  /** When it is answered, in a line for the reference. */
  readonly description: string;
}

export const ERROR_CODES = {
  // 400: the request itself cannot be read
  bad_request: { status: 400, description: "The URL itself is malformed (bad percent-encoding)." },
  invalid_json: { status: 400, description: "The body is not valid JSON." },
  invalid_code: { status: 400, description: "Agent login: a wrong code; the body has `attempts_left`." },
  invalid_units: { status: 400, description: "`units` is not one of 1, 2, 4, 8, 16." },
  invalid_items: { status: 400, description: "A checkout without products." },
  invalid_signature: { status: 400, description: "A payment webhook whose signature does not hold." },
  webhook_from_future: { status: 400, description: "A payment webhook signed more than 5 minutes ahead of the server's clock." },
  invalid_link: { status: 400, description: "A billing return link without its `session_id`." },
  domain_required: { status: 400, description: "`GET /tls/ask` without a `domain`." },
  invalid_state: { status: 400, description: "A code-host authorization link that is unknown or used already." },
  repohost_code_invalid: { status: 400, description: "The code host did not accept the authorization; start connecting again." },
  invalid_sso_request: { status: 400, description: "Community: a DiscourseConnect request that cannot be read or returns to another origin." },

  // 401: who is asking is not known
  invalid_credentials: { status: 401, description: "Site members: an unknown email or a wrong password (the same answer for both)." },
  sign_in_required: { status: 401, description: "Community: posting without being signed in as a member." },
  discourse_ticket_invalid: { status: 401, description: "Community: a hand-off link to Discourse that is not valid." },
  discourse_ticket_expired: { status: 401, description: "Community: a hand-off link to Discourse older than 5 minutes." },

  // 402
  payment_required: { status: 402, description: "A paid feature that is not paid for yet (app hosting, memory, disk, a domain)." },
  payment_declined: { status: 402, description: "The payment provider declined the payment (its reason is in `error`)." },

  // 403: known, but not allowed
  denied: { status: 403, description: "Agent login: the person refused the login." },
  session_required: { status: 403, alsoStatus: [401], description: "An API token on something only a browser session may do (401 when there is no session at all)." },
  cors_refused: { status: 403, description: "A CORS preflight: the API answers no other origin." },
  cross_site_request: { status: 403, description: "A browser form post from another origin." },
  invalid_csrf_token: { status: 403, description: "A browser form post without the page's token." },
  operators_only: { status: 403, description: "The operator dashboard, for someone who is not an operator." },
  not_a_member: { status: 403, description: "Community: posting as a member of another site." },
  invalid_sso_signature: { status: 403, description: "Community: a DiscourseConnect request whose signature does not hold." },

  // 404
  not_found: { status: 404, description: "Nothing here, or a record of someone else's (the two are indistinguishable)." },
  repo_not_found: { status: 404, description: "The repository does not exist or this server cannot see it." },
  ref_not_found: { status: 404, description: "A `ref` the repository does not have, or a default branch that cannot be read." },
  unknown_product: { status: 404, description: "Billing: a product this server does not know." },
  unknown_session: { status: 404, description: "Billing: a checkout that is not the caller's or sells another product." },
  member_not_found: { status: 404, description: "Site members: no such member." },
  thread_not_found: { status: 404, description: "Community: no such thread." },
  community_closed: { status: 404, description: "Community: the site has no forum." },
  certificate_not_allowed: { status: 404, description: "`GET /tls/ask`: a name that gets no certificate (not a verified domain or site address)." },

  // 405
  method_not_allowed: { status: 405, description: "The path exists, the method does not." },

  // 409: the state of things does not allow it now
  not_opened: { status: 409, description: "Agent login: the link was not opened yet by the person." },
  token_limit: { status: 409, description: "The account already has 50 working tokens." },
  wrong_account: { status: 409, description: "A login or code-host link opened signed in as another account." },
  quota_reached: { status: 409, description: "One app per app-hosting purchase or one domain per domain purchase is in use already." },
  storage_full: { status: 409, description: "Deploy, fix or start while the app's data volume fills its disk." },
  not_bundleable: { status: 409, description: "A resource that cannot be bought together with app hosting; buy it on its own." },
  not_configured: { status: 409, description: "An app route (or memory, disk) before the app is set up." },
  already_has: { status: 409, description: "The app already has this much or more." },
  nothing_bought: { status: 409, description: "The billing portal before anything was bought." },
  not_deployed: { status: 409, description: "Restart, start, logs, metrics or reset-data before any deploy succeeded." },
  no_volume: { status: 409, description: "Reset-data of an app without a `volume_path`." },
  run_under_way: { status: 409, description: "A fix while a run of the app is queued or under way." },
  fix_under_way: { status: 409, description: "A fix, or removing the fix, while a fix of the app runs." },
  nothing_to_fix: { status: 409, description: "A fix when the last run did not fail, or for a bare box." },
  fix_failed: { status: 409, alsoStatus: [422], description: "The fix stopped: the app changed meanwhile (409) or no fix applies (422)." },
  app_not_running: { status: 409, description: "A terminal on a box that is not running." },
  not_bare: { status: 409, description: "A terminal on an app that is not a bare box." },
  nothing_to_publish: { status: 409, description: "Publishing a site, or a page, that has no version yet." },
  not_published: { status: 409, description: "Publishing one page before the site was published whole." },
  regenerate_required: { status: 409, description: "A new project type (or remaking the landing page) without `regenerate: true`." },
  slug_taken: { status: 409, description: "Another site has this address." },
  slug_reserved: { status: 409, description: "An address this server keeps for itself." },
  domain_taken: { status: 409, description: "Another project has this domain verified." },
  no_domain: { status: 409, description: "Verify before a domain is connected." },
  bare_domain_unavailable: { status: 409, description: "A bare (apex) domain on a server with no public address set; use a subdomain." },
  auth_redirect_unavailable: { status: 409, description: "`auth_redirect_to_app` without a published sign-in page and a deployed app (`missing` says which)." },
  member_exists: { status: 409, description: "Site members: the email is registered on this site already." },
  thread_full: { status: 409, description: "Community: a thread that has 1,000 replies." },

  // 410
  expired: { status: 410, description: "Agent login: the request expired, was used, or had too many wrong codes." },
  link_expired: { status: 410, description: "A sign-in link used already or older than 15 minutes." },

  // 413, 415
  body_too_large: { status: 413, description: "The body is over the route's limit (1 MB for most)." },
  html_too_large: { status: 413, description: "Custom page HTML over 5 MB." },
  unsupported_media_type: { status: 415, description: "A body that is not `application/json`." },

  // 422: the request reads, its content is refused
  invalid_request: { status: 422, description: "A field is missing, of the wrong type, out of range or unknown (`field` names it)." },
  invalid_repo_url: { status: 422, description: "The link is not a repository link this server understands." },
  invalid_ref: { status: 422, description: "A `ref` that is no branch, tag or commit name git accepts." },
  repo_too_large: { status: 422, description: "A repository over the size or file-count limit for reading it." },
  unknown_design: { status: 422, description: "The design id is not in the catalogue." },
  logo_unavailable: { status: 422, description: "The image at `logo_url` could not be copied." },
  private_repo: { status: 422, description: "A type other than `saas` for a private repository." },
  saas_keeps_type: { status: 422, description: "A `saas` project asked to become another type." },
  instructions_too_long: { status: 422, description: "`instructions` longer than 2000 characters." },
  not_in_plan: { status: 422, description: "Remaking a page that is not in the project's plan." },
  no_plan: { status: 422, description: "Remaking one page of a project that has no plan yet." },
  no_questions: { status: 422, description: "An FAQ page for a repository whose README answers no questions." },
  wrong_kind: { status: 422, description: "Making current a version of another page." },
  invalid_slug: { status: 422, description: "An address that is not 3 to 60 characters of `a-z`, `0-9`, `-`." },
  invalid_domain: { status: 422, alsoStatus: [400], description: "Not a domain name (400 from `GET /tls/ask`)." },
  reserved_domain: { status: 422, description: "A name of this server's or a special-use one (`localhost`, `.internal`, …)." },
  confirm_mismatch: { status: 422, description: "Reset-data without `confirm` set to the app's slug." },
  base_image_required: { status: 422, description: "`build_mode` `bare` without `base_image`." },
  dockerfile_missing: { status: 422, description: "The Dockerfile named is not in the repository." },
  dockerfile_outside_repo: { status: 422, description: "The Dockerfile path leads out of the repository." },
  auto_not_found: { status: 422, description: "`build_mode` `auto` found nothing it knows how to build." },
  deploy_failed: { status: 422, description: "A deploy that failed (the run's `reason` and diagnosis say why)." },

  // 429: later
  rate_limited: { status: 429, description: "Too many logins, sign-ins or posts from one address or member (`retry_after`)." },
  generation_limit: { status: 429, description: "2 generations under way or 30 started in 24 hours (`retry_after`)." },
  build_limit: { status: 429, description: "The account's build is queued or under way, or 20 started in 24 hours (`retry_after`)." },
  too_many_terminals: { status: 429, description: "The box already has 4 terminals open." },

  // 500: the server's side
  internal: { status: 500, description: "An unexpected failure; details go to the server log, not the answer." },
  answer_mismatch: { status: 500, description: "The server's answer broke its own contract (a bug to report)." },
  secret_key_mismatch: { status: 500, description: "Stored secrets cannot be opened with this server's key (`REPOSITE_SECRET_KEY` changed)." },
  payments_config_invalid: { status: 500, description: "The operator's payment settings are not usable." },
  ai_config_invalid: { status: 500, description: "The operator's language model settings are not usable." },
  smtp_url_invalid: { status: 500, description: "The operator's mail server address is not usable." },

  // 502: something behind the server failed
  app_unhealthy: { status: 502, description: "Start, restart or reset-data whose new container did not come up (`exit_oom`)." },
  repohost_unavailable: { status: 502, description: "The code host failed or could not be reached." },
  repohost_unauthorized: { status: 502, description: "The code host refused the operator's token." },
  repohost_auth_failed: { status: 502, description: "The code host refused the token exchange (the operator's OAuth app setup)." },
  repohost_grant_gone: { status: 502, description: "The code host no longer knows the access token being revoked." },
  payments_rejected: { status: 502, description: "The payment provider refused the server's request (its configuration needs fixing)." },
  payments_unavailable: { status: 502, alsoStatus: [503], description: "The payment provider could not be reached or failed, or has no prices (503)." },
  ai_unavailable: { status: 502, description: "The language model could not be reached or failed." },
  ai_rejected: { status: 502, description: "The language model refused the request." },
  mail_failed: { status: 502, description: "The mail server did not take the email (a sign-in link, a login link)." },
  ai_invalid_output: { status: 502, description: "The language model's pages did not hold after it was asked to mend them." },

  // 503: not here, or not now
  hosting_unavailable: { status: 503, description: "App hosting (and `saas` generation) on a server without a container runtime." },
  terminal_unavailable: { status: 503, description: "A terminal on a container runtime that cannot open one." },
  repohost_rate_limited: { status: 503, description: "The code host's rate limit (`retry_after`)." },
  repohost_auth_unavailable: { status: 503, description: "Connecting a code host on a server with no OAuth app for it." },
  payments_off: { status: 503, description: "The billing portal on a server with payments off." },
  payments_rate_limited: { status: 503, description: "The payment provider is rate limiting this server." },
  not_on_sale: { status: 503, description: "A product not sold on this server." },
  ai_not_configured: { status: 503, description: "A fix that needs a language model on a server without one." },
  ai_rate_limited: { status: 503, description: "The language model is rate limiting this server." },
  storage_unavailable: { status: 503, description: "The server's storage does not answer (`GET /healthz`)." },
  shutting_down: { status: 503, description: "The server is shutting down; try again in a moment." },
} as const satisfies Record<string, ErrorCodeInfo>;

/** A code of the table. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes, in the table's order. */
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_CODES, value);
}

/** Every status the code is answered with, its own first. */
export function statusesOf(code: ErrorCode): readonly number[] {
  const info: ErrorCodeInfo = ERROR_CODES[code];
  return [info.status, ...(info.alsoStatus ?? [])];
}
