/**
 * What the Reposite HTTP API sends and accepts, as plain JSON shapes. The SDK declares them
 * itself (it does not depend on the server's packages) so it stays a small, standalone client.
 */

/** A project's type; also the `type` a design suits. */
export type ProjectType = "saas" | "website" | "landing";

/** The pages a site can have; `template` is the landing page. */
export type PageKind = "template" | "about" | "faq" | "auth";

/** Appearance asked for on top of a design; `""` keeps the design's own. */
export type ColorMode = "Dark mode" | "Light mode" | "";

/** States of a project's hosted app. */
export type DeploymentStatus = "configured" | "building" | "starting" | "running" | "stopped" | "failed";

/** The project type and its pages, saved when a site is generated. */
export interface Wizard {
  mode: ProjectType;
  /** Pages besides the landing page. */
  pages: Exclude<PageKind, "template">[];
  /** Whether the site has a community forum for registered people. */
  community: boolean;
}

/** The project's hosted app, as a single-project read summarises it. */
export interface DeploymentSummary {
  status: DeploymentStatus;
  /** The app's address; ends in `/app/`. */
  url: string;
}

/** A project (site) as `GET /app/sites` lists it. */
export interface ProjectView {
  /** The `site_id` every other project call takes. */
  id: string;
  /** Null until an address is set. */
  slug: string | null;
  /** `https://<slug>.<sites domain>`; null until a slug is set. */
  url: string | null;
  /** Product name on every page; defaults to the repository's name. */
  name: string;
  description: string;
  /** Analytics id, `""` when none. */
  ga_id: string;
  /** A design id, or `""` for the automatic pick. */
  design: string;
  color_mode: ColorMode;
  logo_url: string;
  auth_redirect_to_app: boolean;
  /** The repository the project was made from. */
  repohost_url: string;
  /** Whether that repository is private. */
  private: boolean;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  created_at: string;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  updated_at: string;
  /** Page views of the published site. */
  visits: number;
  /** The hosted app's status, or null when the project has no app. */
  app_status: DeploymentStatus | null;
}

/** A project read singly (and as created or updated): the list view plus its plan and its app. */
export interface ProjectDetailView extends ProjectView {
  /** Null until a site is generated, and for a landing page. */
  wizard: Wizard | null;
  /** Null while the project has no app. */
  deployment: DeploymentSummary | null;
}

/** Body of `POST /app/sites`. */
export interface CreateProjectInput {
  /** A link to the repository, in any form the code-hosting service uses (web page, clone URL, SSH). */
  repohost_url: string;
  /** Product name; defaults to the repository's name. */
  name?: string;
  /** A design id from `designs.list()`; left out, the service picks one from the repository. */
  design?: string;
}

/** Body of `PATCH /app/sites/{site_id}`: only the fields sent change. */
export interface UpdateProjectInput {
  name?: string;
  description?: string;
  /** `G-XXXXXXX` or `UA-000000-0`; `""` removes it. */
  ga_id?: string;
  /** A design id, or `""` for the automatic pick. Shows after the next generation. */
  design?: string;
  color_mode?: ColorMode;
  /** An http(s) URL, or `""` to remove it. */
  logo_url?: string;
  /** Needs a published sign-in page and a deployed app. */
  auth_redirect_to_app?: boolean;
}

/** Options of `DELETE /app/sites/{site_id}`. */
export interface DeleteProjectOptions {
  /** Also take the published site down (`?purge=1`). Without it the live site stays up. */
  purge?: boolean;
}

/** A design from the catalogue (`GET /app/designs`). */
export interface Design {
  /** Stable id; what `design` fields take. */
  id: string;
  name: string;
  /** One line. */
  description: string;
  /** The project type it suits. */
  type: ProjectType;
  scheme: "light" | "dark";
}

/** The body of every error answer. Some errors carry more fields (for example `attempts_left`). */
export interface ApiErrorBody {
  /** Human-readable. */
  error: string;
  /** Machine-readable; present only when there is something to tell apart. */
  code?: string;
  [field: string]: unknown;
}

/** Where a token came from: made by a person in the browser, obtained by an agent with a code, or made by the operator (`reposite admin create-token`). */
export type TokenSource = "account" | "agent" | "operator";

/** A token as listed; the secret is never listed. Timestamps are `YYYY-MM-DD HH:MM:SS` UTC. */
export interface Token {
  id: string;
  name: string;
  /** Last characters of the secret. */
  hint: string;
  source: TokenSource;
  created_at: string;
  /** null for a token that never expires. */
  expires_at: string | null;
  last_used_at: string | null;
}

export interface User {
  id: string;
  email: string;
}

/** `GET /agent/me`. */
export interface Me {
  user: User;
  auth: "token";
  token: Token;
}

/** Input of `POST /agent/login`. */
export interface AgentLoginInput {
  /** The person's email: a sign-in link is mailed there (a new address gets an account). */
  email?: string;
  /** The name of the program asking, shown to the person. */
  client: string;
}

/** The answer of `POST /agent/login`. */
export interface LoginRequest {
  request_id: string;
  /** The page the person opens to sign in and see the code. */
  verification_url: string;
  /** Seconds the request lives (900). */
  expires_in: number;
  email_sent: boolean;
  /** Why no email went out, when one was asked for. */
  email_error?: string;
  /** What to tell the person, in a sentence. */
  next_step: string;
}

/** The answer of `POST /agent/token`. */
export interface AgentToken {
  /** The secret: keep it out of URLs, logs and commits. */
  token: string;
  token_type: "Bearer";
  token_id: string;
  expires_at: string | null;
  user: User;
}

/** What a job is doing or how it ended. */
export type JobStatus = "running" | "done" | "error" | "aborted" | "cancelled";

/**
 * A job (`GET /app/jobs/{job_id}`): page generation or a deploy. Jobs are forgotten ten minutes
 * after they end. Timestamps are `YYYY-MM-DD HH:MM:SS` UTC.
 */
export interface Job {
  job_id: string;
  type: "generate" | "deploy";
  status: JobStatus;
  /** Why the job did not end `done`; null while running and when done. */
  error: string | null;
  site_id: string | null;
  /** The page version produced (generation jobs). */
  version_id: string | null;
  /** Set once the job ended. */
  finished_at: string | null;
  /** When pages are generated one after another: the next page's job, set once this one is `done`. */
  next_job_id: string | null;
  /** The deploy run (deploy jobs). */
  run_id: string | null;
  /** Generation jobs: the project type asked for. */
  mode?: ProjectType;
  /** Generation jobs: the pages asked for besides the landing page. */
  pages?: Exclude<PageKind, "template">[];
  /** Generation jobs: the page this job writes. */
  kind?: PageKind;
  [field: string]: unknown;
}

/**
 * One event of a job stream, in this order: `meta` (the job when following started), `delta`s
 * (`i` counts from 0 without gaps; `t` is the text written: page HTML, or build log for a
 * deploy), then `done`, or `error` for a job that ended `error`, `cancelled` or `aborted`
 * (`job.error` says why).
 */
export type JobStreamEvent =
  | { type: "meta"; job: Job }
  | { type: "delta"; i: number; t: string }
  | { type: "done"; job: Job }
  | { type: "error"; job: Job };

/** What `jobs.wait()` answers. */
export interface JobResult {
  /** The job as it ended. */
  job: Job;
  /** Every delta's text from `from` on, joined. */
  text: string;
}

export type PlanPage = "about" | "faq" | "auth";

/** Body of `POST /app/sites/{site_id}/generate`: a plan (`mode`, `pages`) or one page (`kind`). */
export interface GenerateInput {
  /** One page to remake; needs a plan already. */
  kind?: PageKind;
  /** The project type; with `pages`, a full plan. */
  mode?: ProjectType;
  /** Pages besides the landing page; not for `landing`. */
  pages?: PlanPage[];
  /** A community forum for registered people (saas, website). */
  community?: boolean;
  /** Wishes for the pages, at most 2000 characters; not saved with the project. */
  instructions?: string;
  /** With `kind: "template"`: remake the landing page, keep the type. With a full plan: change the type. */
  regenerate?: boolean;
}

/** `202` answer of `POST /app/sites/{site_id}/generate`. */
export interface GenerationStarted {
  /** The first page's job; each done job names the next in `next_job_id`. */
  job_id: string;
  status: "running";
  mode: ProjectType;
  pages: PlanPage[];
  /** The pages this generation writes, in order. */
  generating: PageKind[];
}

/** A page version as listed (no HTML). */
export interface PageVersion {
  id: string;
  kind: PageKind;
  name: string;
  source: "generated" | "custom";
  /** The design it was rendered in; null for custom HTML. */
  design: string | null;
  created_at: string;
  current: boolean;
}

/** A page version read singly. */
export interface PageVersionDetail extends PageVersion {
  html: string;
}

/** Body of `POST /app/sites/{site_id}/versions`. */
export interface CreatePageVersionInput {
  kind: PageKind;
  /** At most 5 MB. */
  html: string;
  /** What changed. */
  name: string;
}

/** Answer of `GET /app/subdomain-check`. */
export type SlugCheck = { available: true } | { available: false; reason: "invalid" | "reserved" | "taken" };

/** Answer of `POST /app/sites/{site_id}/slug`. */
export interface SlugView {
  slug: string;
  /** `https://<slug>.{sites_domain}`. */
  url: string;
}

/** Body of `POST /app/sites/{site_id}/publish`. */
export interface PublishInput {
  /** Opens the community forum; on by default when the site was generated with `community: true`. */
  discourse?: boolean;
}

/** Answer of `POST /app/sites/{site_id}/publish` and `…/publish-page`. */
export interface PublishResult {
  /** The site's address. */
  url: string;
  /** Pages live on the site, by kind (`template` is the landing page at `/`). */
  pages: PageKind[];
}

/** Someone who registered on a published site (`GET /app/sites/{site_id}/members`); never a password. */
export interface MemberView {
  id: string;
  site_id: string;
  email: string;
  created_at: string;
  last_sign_in_at: string | null;
}

/** Kinds of DNS record a custom domain needs. */
export type DnsRecordType = "CNAME" | "A" | "AAAA" | "TXT";

/** One DNS record to add at the domain's DNS provider. */
export interface DnsRecord {
  type: DnsRecordType;
  /** The full name (`www.example.com`, `_reposite.example.com`). */
  name: string;
  /** The name relative to the zone, as most providers' forms ask for it (`www`, `@`, `_reposite`). */
  host: string;
  value: string;
  /** Why it is needed, for a person. */
  purpose: string;
}

/** A project's custom domain (`domain` null when it has none). */
export interface DomainView {
  /** Lower case ASCII, punycode for internationalised names. */
  domain: string | null;
  /** The same name as people write it (`bücher.example`). */
  domain_unicode: string | null;
  /** A bare domain (`example.com`): A/AAAA and TXT records instead of a CNAME. */
  apex: boolean;
  records: DnsRecord[];
  /** DNS was found pointing here: the domain serves the project and gets its certificate. */
  verified: boolean;
  verified_at: string | null;
}

/** `GET /app/sites/{site_id}/domain`. */
export interface DomainReadView extends DomainView {
  /** The site answers on the domain, its app at `/app/` too. */
  live: boolean;
  /** Where it answered (`https://www.example.com/`), or null. */
  live_url: string | null;
  /** Why it is not live, or null. */
  live_reason: string | null;
}

/** One record as a DNS check saw it. */
export interface DnsCheckRecord {
  type: DnsRecordType;
  name: string;
  /** What it should be; null for records that should not be there. */
  expected: string | null;
  found: string[];
  ok: boolean;
  /** The proxying DNS provider whose addresses were found (`Cloudflare`). */
  proxied_by?: string;
  /** DNS could not be asked (`ESERVFAIL`, `ETIMEOUT`, …). */
  error?: string;
}

/** `POST /app/sites/{site_id}/domain/verify`. */
export interface DomainVerifyView extends DomainView {
  dns: {
    /** Every record needed was found, pointing here. */
    found: boolean;
    /** What was found and what is missing, with what to do next. */
    message: string;
    records: DnsCheckRecord[];
  };
}

export type * from "./types/deployment.js";
export type * from "./types/billing.js";
export type * from "./types/repohost.js";
