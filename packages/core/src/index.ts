import "reflect-metadata";

export { RepositeError } from "./errors.js";
export { parseInput } from "./util/validation.js";
export { createReposite, DEFAULT_CONFIG, type CreateRepositeOptions, type Reposite } from "./create-reposite.js";
export { CONFIG, siteUrl, type RepositeConfig } from "./config.js";

export { CLOCK, type Clock } from "./ports/clock.js";
export { IDS, type IdGenerator } from "./ports/ids.js";
export { LOCKS, type Locks } from "./ports/locks.js";
export { STORAGE, isTransactionalDriver, type RecordStorage, type TransactionalDriver } from "./ports/storage.js";
export { withTransaction, supportsTransactions } from "./util/storage-transactions.js";
export * from "./ports/container-runtime.js";
export * from "./ports/image-builder.js";
export * from "./ports/app-runtime.js";
export { containerRuntimeFromPorts, asOrchestrated, asPorts, type PortsContainerRuntime } from "./hosting/runtime-from-ports.js";
export * from "./ports/payments.js";
export * from "./ports/dns.js";
export { DomainTable, type DomainEntry } from "./domains/domain-table.js";
export { DomainsService, type DomainView, type DomainReadView, type DomainVerifyView } from "./domains/domains-service.js";
export { DomainStore, type DomainRecord } from "./domains/domain-store.js";
export { parseDomainName, describeDomain, MAX_DOMAIN_LENGTH, type DomainName } from "./domains/domain-name.js";
export { OWNERSHIP_LABEL, type DnsRecordView, type DnsRecordType } from "./domains/domain-records.js";
export type { DnsCheck, DnsCheckRecord } from "./domains/dns-check.js";
export { DNS_PROXIES, dnsProxyOf, type DnsProxy } from "./domains/proxy-ranges.js";
export { DOMAIN_SETTINGS, DEFAULT_DOMAIN_SETTINGS, DOMAIN_PROOF_PATH, type DomainSettings } from "./domains/domain-settings.js";
export { LiveCheck, type LiveAnswer, type LiveTarget } from "./domains/live-check.js";
export { createNodeDnsResolver, type NodeDnsOptions } from "./defaults/node-dns-resolver.js";
export * from "./certificates/index.js";
export { freePayments } from "./defaults/free-payments.js";
export { AppRoutes, type AppRoute, type AppTarget, type AppLease } from "./hosting/app-routes.js";
export { HOSTING_ENTITLEMENTS, allowAllHosting, type HostingEntitlements, type HostingRefusal } from "./ports/hosting-entitlements.js";
export * from "./billing/index.js";
export { HostingService, type SetupResult, type DeployStarted } from "./hosting/hosting-service.js";
export { HostingAvailability } from "./hosting/hosting-availability.js";
export { AppDisk } from "./hosting/app-disk.js";
export { AppFixer } from "./hosting/app-fixer.js";
export { AppOperations } from "./hosting/app-operations.js";
export { AppTerminal, MAX_TERMINALS_PER_APP, terminalSize, type TerminalSize } from "./hosting/app-terminal.js";
export { DIAGNOSIS_KINDS, type Diagnosis, type DiagnosisKind, type DiagnosisEvidence } from "./hosting/diagnosis/diagnosis.js";
export { dockerfileSteps, stageStepLine, type DockerfileStep } from "./hosting/diagnosis/dockerfile-steps.js";
export { HOSTING_SETTINGS, DEFAULT_HOSTING_SETTINGS, FREE_TIER, type HostingSettings } from "./hosting/hosting-settings.js";
export { BUILD_MODES, BARE_BASE_IMAGES, DEFAULT_SETUP, type BuildMode, type BareBaseImage, type DeploymentSetup, type SetupInput } from "./hosting/deployment-setup.js";
export { MASKED_VALUE, MAX_ENV_KEYS, type EnvView } from "./hosting/deployment-env.js";
export { shownStatus, type AppContainer, type DeploymentRecord, type DeploymentView, type LastRunView } from "./hosting/deployment-record.js";
export { DeploymentStore } from "./hosting/deployment-store.js";
export { GenerationPlanStore } from "./generation/plan-store.js";
export { RUN_STATUSES, RUNS_KEPT, SERVER_STOPPED_REASON, type RunStatus, type RunView, type RunDetailView, type DeployRunRecord, type DockerfileSource } from "./hosting/deploy-run.js";
export { BUILDS_AT_A_TIME, BUILDS_PER_DAY } from "./hosting/build-queue.js";
export { RUN_LOG_LIMITS, type RunLogLimits } from "./hosting/run-log.js";
export { BASE_IMAGE_NAMES, baseImageSetting, neededImages, type NeededImage } from "./hosting/needed-images.js";
export { createSecretMasker, MIN_MASKED_LENGTH } from "./hosting/secret-masker.js";
export { LABEL_ROLE, LABEL_SITE, LABEL_RUN, imageTag, volumeName, networkName } from "./hosting/app-names.js";
export {
  freeTierResources,
  resourceView,
  isResourceStep,
  RESOURCE_UNITS,
  MEMORY_UNIT_MB,
  DISK_UNIT_MB,
  type ResourcesView,
  type ResourceView,
  type ResourceStep,
  type ResourceFacts,
} from "./hosting/resources.js";
export type { RecoveryReport } from "./hosting/app-recovery.js";
export { LANGUAGE_MODEL, type LanguageModel, type TextStreamRequest } from "./ports/language-model.js";
export { MAILER, type Mailer, type MailMessage } from "./ports/mailer.js";
export { createOutboxMailer, type OutboxMailerOptions, type OutboxMessage } from "./defaults/outbox-mailer.js";
export { REPO_HOSTS, type RepoHost, type RepoLink, type RepoFacts, type RepoAccess } from "./ports/repo-host.js";

export { systemClock } from "./defaults/system-clock.js";
export { randomIds } from "./defaults/random-ids.js";
export { isWellFormedId, idField, type IdPrefix } from "./util/record-ids.js";
export { createInProcessLocks } from "./defaults/in-process-locks.js";
export { crashSafeFsDriver, type CrashSafeFsOptions } from "./defaults/crash-safe-fs-driver.js";

export { AccountsService } from "./accounts/accounts-service.js";
export type { Account } from "./accounts/account.js";
export { TokensService, type CreatedToken, type Authenticated } from "./tokens/tokens-service.js";
export {
  TOKEN_LIFETIMES,
  TOKEN_SOURCES,
  MAX_WORKING_TOKENS,
  type TokenLifetime,
  type TokenSource,
  type TokenView,
} from "./tokens/token.js";
export { TOKEN_PREFIX } from "./tokens/token-secret.js";

export { ProjectsService } from "./projects/projects-service.js";
export { ProjectStore } from "./projects/project-store.js";
export { ProjectRecordsSplit, MOVED_PROJECT_FIELDS } from "./projects/project-records-split.js";
export { Leases } from "./util/leases.js";
export { ReplicaIdentity, REPLICA_SETTINGS, type ReplicaSettings } from "./util/replica-identity.js";
export { ProjectCache, PROJECT_CACHE_SETTINGS, DEFAULT_PROJECT_CACHE_SETTINGS, type CachedProject, type ProjectCacheSettings } from "./projects/project-cache.js";
export { PROJECT_CHANGED_CHANNEL, type ProjectChanged } from "./projects/project-events.js";
export { LogoFetcher, MAX_LOGO_BYTES } from "./projects/logo-fetcher.js";
export { ImageDownloader, ImageUnavailable, IMAGE_TYPES, type DownloadedImage, type DownloadOptions } from "./util/image-downloader.js";
export { logoSource } from "./projects/project.js";
export { isPublicAddress } from "./util/public-address.js";
export type {
  ProjectRecord,
  ProjectView,
  ProjectDetailView,
  ProjectType,
  PageKind,
  Wizard,
  ColorMode,
  DeploymentSummary,
} from "./projects/project.js";
export type { CreateProjectInput, UpdateProjectInput } from "./projects/project-input.js";
export { DEPLOYMENT_STATUSES, type DeploymentStatus } from "./projects/deployment.js";
export { RepositoriesService, type ResolvedRepository } from "./repositories/repositories-service.js";
export { RepoAccessService, REPO_AUTH_STATE_TTL_MS, REPO_AUTH_CALLBACK_PATH } from "./repo-access/repo-access-service.js";
export { assertTypeAllowed } from "./repo-access/project-type-rule.js";
export { REPO_HOST_AUTHORIZERS, REPO_GRANT_GONE, type RepoHostAuthorizer, type RepoHostGrant } from "./ports/repo-host-auth.js";
export { encryptSecret, decryptSecret, SECRET_KEY_BYTES } from "./util/encryption.js";
export { loadOrCreateSecretKey, parseSecretKey, SECRET_KEY, SECRET_KEY_FILE, type SecretKeyLoader } from "./util/secret-key.js";
export { SecretBox } from "./util/secret-box.js";

export * from "./designs/index.js";
export * from "./repo-host/index.js";
export { formatTimestamp, parseTimestamp } from "./util/timestamps.js";

export { SignInLinks, safeNextPath, SIGN_IN_EMAILS_PER_HOUR, SIGN_IN_EMAILS_PER_CLIENT_PER_HOUR, type SendResult } from "./sessions/sign-in-links.js";
export { SessionsService, SESSION_TTL_MS, type BrowserSession } from "./sessions/sessions-service.js";
export { AgentLoginService, type IssuedAgentToken } from "./agent-login/agent-login-service.js";
export {
  CODE_ALPHABET,
  LOGIN_REQUEST_KEPT_MS,
  LOGIN_REQUEST_TTL_SECONDS,
  LOGINS_PER_ADDRESS_PER_HOUR,
  MAX_WRONG_CODES,
  type LoginRequestView,
  type LoginRequestPage,
} from "./agent-login/login-request.js";
export { RateLimiter, type RateLimit } from "./util/rate-limiter.js";
export { ExpiringRecords, EXPIRY_BUCKET_MS, EXPIRY_SWEEP_MS } from "./util/expiring-records.js";
export * from "./repo-analysis/index.js";

export { EVENTS, type EventBus } from "./ports/events.js";
export { createInProcessEvents } from "./defaults/in-process-events.js";
export {
  JobsService,
  JOB_SETTINGS,
  DEFAULT_JOB_SETTINGS,
  type JobSettings,
  type StartJobSpec,
  type RunningJob,
  type JobOutcome,
  type JobWork,
} from "./jobs/jobs-service.js";
export {
  JOB_STATUSES,
  JOB_RETENTION_MS,
  DELTAS_PER_CHUNK,
  toJobView,
  type JobStatus,
  type JobType,
  type JobRecord,
  type JobView,
  type JobEvent,
} from "./jobs/job.js";

export { GenerationService, PAGE_AUTHOR, GENERATIONS_AT_A_TIME, GENERATIONS_PER_DAY } from "./generation/generation-service.js";
export type { GenerateInput, GenerationStarted } from "./generation/generation-input.js";
export { createReadmeAuthor } from "./generation/readme-author.js";
export { createAiAuthor, type AiAuthorOptions } from "./generation/ai-author.js";
export { splitInstructions, assertInstructionsLength, INSTRUCTIONS_MAX } from "./generation/instructions.js";
export type { PageAuthor, PageRequest } from "./generation/page-author.js";
export * from "./generation/page-content.js";
export { PageVersionsService } from "./pages/page-versions-service.js";
export { PAGE_KINDS, MAX_PAGE_HTML_BYTES, type PageVersionView, type PageVersionDetail } from "./pages/page-version.js";
export * from "./rendering/index.js";
export * from "./members/index.js";
export * from "./community/index.js";
export { renderSitePage, plainTextHtml, SITE_PAGE_CSS, type SitePageOptions } from "./rendering/site-shell.js";
export { SITE_CHANGED_CHANNEL, type PublishedSite, type PublishedSiteInfo, type PublishedFile, type SiteChanged } from "./sites/published-site.js";
export { SEARCH_NOTIFIER, type SearchNotifier } from "./ports/search-notifier.js";
export { createIndexNowNotifier, DEFAULT_INDEXNOW_ENDPOINT, INDEXNOW_MAX_URLS, type IndexNowNotifierOptions } from "./sites/indexnow-notifier.js";
export { PublishingService, type SlugCheck, type SlugView, type PublishResult } from "./sites/publishing-service.js";
export { PublishedSiteStore } from "./sites/published-site-store.js";
export { ProjectRemoval } from "./sites/project-removal.js";
export { RESERVED_SLUGS, SLUG_MIN_LENGTH, SLUG_MAX_LENGTH, isValidSlug, slugProblem, slugFromName, slugCandidates, type SlugProblem } from "./sites/slugs.js";
export { siteHead, notFoundHead, injectHead, stripSiteHead, pageMeta, PREVIEW_IMAGE_PATH, PREVIEW_IMAGE_WIDTH, PREVIEW_IMAGE_HEIGHT, type SiteHeadInput } from "./sites/site-head.js";
export { renderSitemap, type SitemapEntry } from "./sites/sitemap.js";
export { renderRobots } from "./sites/robots.js";
export { renderPreviewImage, plainPreviewPng, previewSvg, type PreviewImageInput } from "./sites/preview-image.js";
export { renderFavicons, monogramSvg, FAVICON_ICO_PATH, FAVICON_SVG_PATH, type FaviconFile } from "./sites/favicon.js";
export { SiteImages, SITE_IMAGES_PATH, MAX_SITE_IMAGES, MAX_SITE_IMAGE_BYTES, isSiteImagePath, referencedPictures, type SiteImageFile, type ImageJob } from "./sites/site-images.js";
export { readmeLogo } from "./sites/readme-logo.js";
export {
  SiteCache,
  SITE_CACHE_SETTINGS,
  DEFAULT_SITE_CACHE_SETTINGS,
  DEFAULT_SITE_CACHE_BYTES,
  SITE_OVERHEAD_BYTES,
  NOT_FOUND_PATH,
  prepareSite,
  type CachedSite,
  type SiteCacheSettings,
  type SiteCacheStats,
} from "./sites/site-cache.js";
export { isCompressible, prepareFile, FILE_OVERHEAD_BYTES, type BodyEncoding, type CachedFile, type CachedFileHooks } from "./sites/cached-file.js";
export {
  VisitCounter,
  VISIT_SETTINGS,
  DEFAULT_VISIT_SETTINGS,
  BOT_USER_AGENT_PATTERNS,
  isBotUserAgent,
  isPagePath,
  isPageView,
  type VisitRequest,
  type VisitSettings,
} from "./sites/visits.js";
export { EdgeRouteTable } from "./edge/edge-route-table.js";
export type { EdgeApp, EdgeDomain, EdgeRoutes, ProjectRoute } from "./edge/edge-routes.js";
export { nginxEdgeConfig, nginxServedApps, appUpstream, NODE_UPSTREAM, SWARM_RESOLVER, type NginxEdgeSettings, type NodeSocket } from "./edge/nginx-config.js";
export type { NginxMemberGateSettings } from "./edge/nginx-member-gate.js";
export type { NginxAppPagesSettings } from "./edge/nginx-app-pages.js";
export { edgeFileName, EDGE_FILE_TYPES, EDGE_NOT_FOUND_FILE } from "./edge/edge-site-files.js";
export { siteHosts, siteHostsDir, type NginxSiteSettings } from "./edge/nginx-site-config.js";
export type { NginxTlsSettings } from "./edge/nginx-tls.js";
