/**
 * What the Reposite HTTP API sends and accepts. The shapes come from the one contract,
 * `@reposite/contract` (the zod schemas the server validates with and `/openapi.json` is written
 * from), imported as types only: the SDK's runtime does not load the contract or zod. The names
 * below are the SDK's public ones, kept as aliases of the contract's.
 */
import type {
  AgentLoginInput as ContractAgentLoginInput,
  AgentToken as ContractAgentToken,
  CreatePageVersionInput as ContractCreatePageVersionInput,
  CreateProjectInput as ContractCreateProjectInput,
  DeploymentStatus as ContractDeploymentStatus,
  DeploymentSummary as ContractDeploymentSummary,
  Design as ContractDesign,
  DnsCheckRecord as ContractDnsCheckRecord,
  DnsRecordType as ContractDnsRecordType,
  DnsRecordView,
  DomainReadView as ContractDomainReadView,
  DomainVerifyView as ContractDomainVerifyView,
  DomainView as ContractDomainView,
  GenerateInput as ContractGenerateInput,
  GenerationStarted as ContractGenerationStarted,
  Job as ContractJob,
  JobEvent,
  JobStatus as ContractJobStatus,
  LoginRequest as ContractLoginRequest,
  Me as ContractMe,
  Member,
  PageKind as ContractPageKind,
  PageVersion as ContractPageVersion,
  PageVersionDetail as ContractPageVersionDetail,
  PlanPage as ContractPlanPage,
  Project,
  ProjectDetail,
  PublishInput as ContractPublishInput,
  PublishResult as ContractPublishResult,
  SlugCheck as ContractSlugCheck,
  SlugView as ContractSlugView,
  Token as ContractToken,
  TokenSource as ContractTokenSource,
  UpdateProjectInput as ContractUpdateProjectInput,
  User as ContractUser,
  Wizard as ContractWizard,
} from "@reposite/contract";

/** A project's type; also the `type` a design suits. */
export type ProjectType = ContractDesign["type"];
/** The pages a site can have; `template` is the landing page. */
export type PageKind = ContractPageKind;
/** Appearance asked for on top of a design; `""` keeps the design's own. */
export type ColorMode = Project["color_mode"];
/** States of a project's hosted app. */
export type DeploymentStatus = ContractDeploymentStatus;
/** The project type and its pages, saved when a site is generated. */
export type Wizard = ContractWizard;
/** The project's hosted app, as a single-project read summarises it. */
export type DeploymentSummary = ContractDeploymentSummary;
/** A project (site) as `GET /app/sites` lists it. */
export type ProjectView = Project;
/** A project read singly (and as created or updated): the list view plus its plan and its app. */
export type ProjectDetailView = ProjectDetail;
/** Body of `POST /app/sites`. */
export type CreateProjectInput = ContractCreateProjectInput;
/** Body of `PATCH /app/sites/{site_id}`: only the fields sent change. */
export type UpdateProjectInput = ContractUpdateProjectInput;

/** Options of `DELETE /app/sites/{site_id}`. */
export interface DeleteProjectOptions {
  /** Also take the published site down (`?purge=1`). Without it the live site stays up. */
  purge?: boolean;
}

/** A design from the catalogue (`GET /app/designs`). */
export type Design = ContractDesign;

/** The body of every error answer. Some errors carry more fields (for example `attempts_left`). */
export interface ApiErrorBody {
  /** Human-readable. */
  error: string;
  /** Machine-readable; present only when there is something to tell apart. */
  code?: string;
  [field: string]: unknown;
}

/** Where a token came from: made by a person in the browser, obtained by an agent with a code, or made by the operator. */
export type TokenSource = ContractTokenSource;
/** A token as listed; the secret is never listed. */
export type Token = ContractToken;
export type User = ContractUser;
/** `GET /agent/me`. */
export type Me = ContractMe;
/** Input of `POST /agent/login`. */
export type AgentLoginInput = ContractAgentLoginInput;
/** The answer of `POST /agent/login`. */
export type LoginRequest = ContractLoginRequest;
/** The answer of `POST /agent/token`; `token` is the secret: keep it out of URLs, logs and commits. */
export type AgentToken = ContractAgentToken;

/** What a job is doing or how it ended. */
export type JobStatus = ContractJobStatus;
/** A job (`GET /app/jobs/{job_id}`): page generation or a deploy. Forgotten ten minutes after it ends. */
export type Job = ContractJob;
/**
 * One event of a job stream, in this order: `meta` (the job when following started), `delta`s
 * (`i` counts from 0 without gaps; `t` is the text written: page HTML, or build log for a
 * deploy), then `done`, or `error` for a job that ended `error`, `cancelled` or `aborted`.
 */
export type JobStreamEvent = JobEvent;

/** What `jobs.wait()` answers. */
export interface JobResult {
  /** The job as it ended. */
  job: Job;
  /** Every delta's text from `from` on, joined. */
  text: string;
}

export type PlanPage = ContractPlanPage;
/** Body of `POST /app/sites/{site_id}/generate`: a plan (`mode`, `pages`) or one page (`kind`). */
export type GenerateInput = ContractGenerateInput;
/** `202` answer of `POST /app/sites/{site_id}/generate`. */
export type GenerationStarted = ContractGenerationStarted;

/** A page version as listed (no HTML). */
export type PageVersion = ContractPageVersion;
/** A page version read singly. */
export type PageVersionDetail = ContractPageVersionDetail;
/** Body of `POST /app/sites/{site_id}/versions`. */
export type CreatePageVersionInput = ContractCreatePageVersionInput;

/** Answer of `GET /app/subdomain-check`. */
export type SlugCheck = ContractSlugCheck;
/** Answer of `POST /app/sites/{site_id}/slug`. */
export type SlugView = ContractSlugView;
/** Body of `POST /app/sites/{site_id}/publish`. */
export type PublishInput = ContractPublishInput;
/** Answer of `POST /app/sites/{site_id}/publish` and `…/publish-page`. */
export type PublishResult = ContractPublishResult;

/** Someone who registered on a published site (`GET /app/sites/{site_id}/members`); never a password. */
export type MemberView = Member;

/** Kinds of DNS record a custom domain needs. */
export type DnsRecordType = ContractDnsRecordType;
/** One DNS record to add at the domain's DNS provider. */
export type DnsRecord = DnsRecordView;
/** A project's custom domain (`domain` null when it has none). */
export type DomainView = ContractDomainView;
/** `GET /app/sites/{site_id}/domain`. */
export type DomainReadView = ContractDomainReadView;
/** One record as a DNS check saw it. */
export type DnsCheckRecord = ContractDnsCheckRecord;
/** `POST /app/sites/{site_id}/domain/verify`. */
export type DomainVerifyView = ContractDomainVerifyView;

export type * from "./types/deployment.js";
export type * from "./types/billing.js";
export type * from "./types/repohost.js";
