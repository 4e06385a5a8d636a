import "reflect-metadata";
import { resolve } from "node:path";
import { container as rootContainer, type DependencyContainer } from "tsyringe";
import { createStorage } from "unstorage";
import { AccountsService } from "./accounts/accounts-service.js";
import { AgentLoginService } from "./agent-login/agent-login-service.js";
import { CONFIG, type RepositeConfig } from "./config.js";
import { crashSafeFsDriver } from "./defaults/crash-safe-fs-driver.js";
import { createInProcessLocks } from "./defaults/in-process-locks.js";
import { createOutboxMailer } from "./defaults/outbox-mailer.js";
import { randomIds } from "./defaults/random-ids.js";
import { systemClock } from "./defaults/system-clock.js";
import { createInProcessEvents } from "./defaults/in-process-events.js";
import { createAiAuthor } from "./generation/ai-author.js";
import { GenerationService, PAGE_AUTHOR } from "./generation/generation-service.js";
import { AccountBilling } from "./billing/account-summary.js";
import { AppLimits } from "./billing/app-limits.js";
import { AppResources } from "./billing/app-resources.js";
import { BillingService } from "./billing/billing-service.js";
import { BillingEntitlements } from "./billing/entitlements.js";
import { PaymentEvents } from "./billing/payment-events.js";
import { PriceList } from "./billing/price-list.js";
import { ProcessedEvents } from "./billing/processed-events.js";
import { PurchaseActivation } from "./billing/purchase-activation.js";
import { PurchaseStore } from "./billing/purchase-store.js";
import { AppAccess } from "./hosting/app-access.js";
import { DomainTable } from "./domains/domain-table.js";
import { DomainStore } from "./domains/domain-store.js";
import { DomainsService } from "./domains/domains-service.js";
import { DOMAIN_SETTINGS, type DomainSettings } from "./domains/domain-settings.js";
import { LiveCheck } from "./domains/live-check.js";
import { createNodeDnsResolver, type NodeDnsOptions } from "./defaults/node-dns-resolver.js";
import { DNS_RESOLVER, type DnsResolver } from "./ports/dns.js";
import { AppChanges } from "./hosting/app-changes.js";
import { AppContainers } from "./hosting/app-containers.js";
import { AppDisk } from "./hosting/app-disk.js";
import { DeploymentStore } from "./hosting/deployment-store.js";
import { GenerationPlanStore } from "./generation/plan-store.js";
import { AppFixer } from "./hosting/app-fixer.js";
import { AppOperations } from "./hosting/app-operations.js";
import { AppTerminal } from "./hosting/app-terminal.js";
import { AppRecovery } from "./hosting/app-recovery.js";
import { BuildQueue } from "./hosting/build-queue.js";
import { DeployPipeline } from "./hosting/deploy-pipeline.js";
import { DeployRunStore } from "./hosting/deploy-run-store.js";
import { HostingAvailability } from "./hosting/hosting-availability.js";
import { HostingService } from "./hosting/hosting-service.js";
import { HOSTING_SETTINGS, type HostingSettings } from "./hosting/hosting-settings.js";
import { REPLICA_SETTINGS } from "./util/replica-identity.js";
import { createReadmeAuthor } from "./generation/readme-author.js";
import { DiscourseHandOff } from "./community/discourse-hand-off.js";
import { ForumService } from "./community/forum-service.js";
import { JobsService } from "./jobs/jobs-service.js";
import { EdgeRouteTable } from "./edge/edge-route-table.js";
import { AppRoutes } from "./hosting/app-routes.js";
import { MemberSessionCache } from "./members/member-session-cache.js";
import { MembersService } from "./members/members-service.js";
import { PageVersionsService } from "./pages/page-versions-service.js";
import { CLOCK, type Clock } from "./ports/clock.js";
import { CONTAINER_RUNTIME, type ContainerRuntime } from "./ports/container-runtime.js";
import { APP_RUNTIME, type AppRuntime } from "./ports/app-runtime.js";
import { IMAGE_BUILDER, type ImageBuilder } from "./ports/image-builder.js";
import { containerRuntimeFromPorts } from "./hosting/runtime-from-ports.js";
import { HOSTING_ENTITLEMENTS, type HostingEntitlements } from "./ports/hosting-entitlements.js";
import { EVENTS, type EventBus } from "./ports/events.js";
import { LANGUAGE_MODEL, type LanguageModel } from "./ports/language-model.js";
import { PAYMENT_PROVIDER, type PaymentProvider } from "./ports/payments.js";
import { freePayments } from "./defaults/free-payments.js";
import { IDS, type IdGenerator } from "./ports/ids.js";
import { LOCKS, type Locks } from "./ports/locks.js";
import { MAILER, type Mailer } from "./ports/mailer.js";
import { REPO_HOST_AUTHORIZERS, type RepoHostAuthorizer } from "./ports/repo-host-auth.js";
import { REPO_HOSTS, type RepoHost } from "./ports/repo-host.js";
import { SEARCH_NOTIFIER, type SearchNotifier } from "./ports/search-notifier.js";
import { STORAGE, type RecordStorage } from "./ports/storage.js";
import { ProjectCache } from "./projects/project-cache.js";
import { ProjectRecordsSplit } from "./projects/project-records-split.js";
import { ProjectStore } from "./projects/project-store.js";
import { ProjectsService } from "./projects/projects-service.js";
import { DEFAULT_BASE_IMAGES, type BaseImages } from "./repo-analysis/repo-check.js";
import { RepoCheckService } from "./repo-analysis/repo-check-service.js";
import { RepoAccessService } from "./repo-access/repo-access-service.js";
import { createGitHubOAuth, type GitHubOAuthOptions } from "./repo-host/github-oauth.js";
import { createGitRepoHost } from "./repo-host/git-repo-host.js";
import { createLocalRepoHost } from "./repo-host/local-repo-host.js";
import { createGitHubRepoHost, type GitHubRepoHostOptions } from "./repo-host/index.js";
import { RepositoriesService } from "./repositories/repositories-service.js";
import { SessionsService } from "./sessions/sessions-service.js";
import { SignInLinks } from "./sessions/sign-in-links.js";
import { PublishedSiteStore } from "./sites/published-site-store.js";
import { ProjectRemoval } from "./sites/project-removal.js";
import { PublishingService } from "./sites/publishing-service.js";
import { DEFAULT_SITE_CACHE_BYTES, SiteCache } from "./sites/site-cache.js";
import { VisitCounter } from "./sites/visits.js";
import { TokensService } from "./tokens/tokens-service.js";
import { ExpiringRecords } from "./util/expiring-records.js";
import { RateLimiter } from "./util/rate-limiter.js";
import { SecretBox } from "./util/secret-box.js";
import { loadOrCreateSecretKey, SECRET_KEY } from "./util/secret-key.js";

export interface CreateRepositeOptions {
  /** Service settings; each has an embedded default for one machine. `baseImages` may name only some. */
  config?: Partial<Omit<RepositeConfig, "baseImages">> & { baseImages?: Partial<BaseImages> };
  /** Records; default: crash-safe files under `<dataDir>/records` (`crashSafeFsDriver`). */
  storage?: RecordStorage;
  /** Repo hosts, first match wins; default: GitHub (public API, or `github` options), then `gitHosts`, then `localRepos`. */
  repoHosts?: RepoHost[];
  /** Options of the default GitHub repo host, when `repoHosts` is not given. */
  github?: GitHubRepoHostOptions;
  /** A GitHub OAuth app, so people can connect GitHub and use private repositories. */
  githubOAuth?: Omit<GitHubOAuthOptions, "apiUrl" | "fetch">;
  /** Authorizers of code hosts; default: GitHub's when `githubOAuth` is given. */
  repoHostAuthorizers?: RepoHostAuthorizer[];
  /** Other git hosts the operator enables (hostnames), read with the `git` client. */
  gitHosts?: string[];
  /** Folders of this machine whose repositories may be read (`file://` links, absolute paths); default none. */
  localRepos?: string[];
  /** Key that seals stored secrets (32 bytes, base64 or hex); default: `<dataDir>/secret.key`, made on first use. */
  secretKey?: string;
  /** Outgoing mail; default: one file per message in `<dataDir>/outbox`. */
  mailer?: Mailer;
  /** A model for the AI author; without one, pages are written by the README author. */
  languageModel?: LanguageModel;
  /** Tells search engines about published pages (IndexNow); default: nobody is told. */
  searchNotifier?: SearchNotifier;
  /** Job events between processes; default: in this process only. */
  events?: EventBus;
  clock?: Clock;
  ids?: IdGenerator;
  locks?: Locks;
  /** Where apps are built and run; without one, app hosting is off (its routes and `saas` generation answer 503). */
  containerRuntime?: ContainerRuntime;
  /**
   * The two ports apps are hosted through: the builder that makes their images and the runtime
   * that runs them. Core rolls out on a `caller` runtime (`@reposite/provider-docker`, one engine)
   * and follows an `orchestrator` runtime's own rollouts (`@reposite/provider-swarm`). Both or
   * neither; not with `containerRuntime`.
   */
  appRuntime?: AppRuntime;
  imageBuilder?: ImageBuilder;
  /** Where payments happen; default: `freePayments` (payments off, every product free). `@reposite/provider-stripe` sells through Stripe. */
  payments?: PaymentProvider;
  /** Whether an account may host a project's app; default: the account's purchases (`BillingEntitlements`; everyone may while payments are off). */
  hostingEntitlements?: HostingEntitlements;
  /** Limits and timings of app hosting (build concurrency, build memory and time, health check, drain). */
  hosting?: Partial<HostingSettings>;
  /** How custom domains' DNS is checked: a `DnsResolver`, or the servers the embedded `node:dns` one asks (default: the system's). */
  dns?: DnsResolver | NodeDnsOptions;
  /** How a custom domain's `live` is found out: the public HTTPS/HTTP ports tried, timeouts, how long an answer is kept. */
  domains?: Partial<DomainSettings>;
  /** Last word on the container: register or replace anything before services are built. */
  register?: (container: DependencyContainer) => void;
}

/** Reposite composed: the domain services, ready to call without HTTP. */
export interface Reposite {
  readonly config: RepositeConfig;
  readonly container: DependencyContainer;
  readonly accounts: AccountsService;
  readonly tokens: TokensService;
  readonly projects: ProjectsService;
  readonly repositories: RepositoriesService;
  readonly repoAccess: RepoAccessService;
  readonly repoCheck: RepoCheckService;
  readonly signInLinks: SignInLinks;
  readonly sessions: SessionsService;
  readonly agentLogin: AgentLoginService;
  readonly jobs: JobsService;
  readonly generation: GenerationService;
  readonly pageVersions: PageVersionsService;
  readonly publishing: PublishingService;
  /** Deleting projects: without purge a live site stays up; with purge everything the project holds goes. */
  readonly projectRemoval: ProjectRemoval;
  /** Published sites in memory, ready to serve (the site runtime reads only this on its hot path). */
  readonly siteCache: SiteCache;
  readonly visits: VisitCounter;
  readonly members: MembersService;
  readonly forum: ForumService;
  /** App hosting: setup, env, deploys, runs, stop/start/restart, removal, resources, recovery at start. */
  readonly hosting: HostingService;
  /** `POST …/deployment/fix` and `DELETE …/deployment/override`: a failed app's Dockerfile fixed (by the model, or by rules without one). */
  readonly appFixer: AppFixer;
  /** An app's logs, metrics and data reset. */
  readonly appOperations: AppOperations;
  /** A shell in an app's container, for its owner's browser session. */
  readonly appTerminal: AppTerminal;
  /** Every project's custom domain, in memory: host routing and TLS ask it on their hot paths. */
  readonly domainTable: DomainTable;
  /** Custom domains: connect, check DNS, read (with `live`), remove; keeps `domainTable`. Its `load()` is started here. */
  readonly domains: DomainsService;
  /** The `/app/` proxy's table: each app's state and target, in memory. */
  readonly appRoutes: AppRoutes;
  /** Payments: prices, product statuses, checkouts and confirms, the account's purchases, the billing portal, webhooks. */
  readonly billing: BillingService;
  /** Lets go of what the ports hold (storage handles, timers). */
  close(): Promise<void>;
}

export const DEFAULT_CONFIG: RepositeConfig = {
  baseUrl: "http://localhost:3000",
  sitesDomain: "localhost:3000",
  dataDir: ".reposite",
  mailFrom: "Reposite <no-reply@localhost>",
  operatorEmails: [],
  allowPrivateFetch: false,
  siteCacheBytes: DEFAULT_SITE_CACHE_BYTES,
  baseImages: DEFAULT_BASE_IMAGES,
  publicIpv4: null,
  publicIpv6: null,
};

/** Services, each a singleton of its container. */
const SERVICES = [
  AccountsService,
  TokensService,
  ProjectRecordsSplit,
  ProjectStore,
  ProjectsService,
  RepositoriesService,
  RepoAccessService,
  RepoCheckService,
  SecretBox,
  ExpiringRecords,
  RateLimiter,
  SignInLinks,
  SessionsService,
  AgentLoginService,
  JobsService,
  PageVersionsService,
  GenerationPlanStore,
  GenerationService,
  PublishedSiteStore,
  PublishingService,
  ProjectRemoval,
  SiteCache,
  VisitCounter,
  MembersService,
  MemberSessionCache,
  ProjectCache,
  ForumService,
  DiscourseHandOff,
  // Payments: purchases and what they allow (hosting, memory, disk, domains).
  PurchaseStore,
  PriceList,
  ProcessedEvents,
  PurchaseActivation,
  PaymentEvents,
  AppLimits,
  AppResources,
  BillingEntitlements,
  AccountBilling,
  BillingService,
  // One table per composition: the hosting service writes it, the /app/ proxy reads it.
  AppRoutes,
  // The one route table the Node runtime and the nginx edge both read (sites, domains, apps, gates).
  EdgeRouteTable,
  HostingAvailability,
  DeployRunStore,
  DeploymentStore,
  BuildQueue,
  DomainTable,
  DomainStore,
  LiveCheck,
  DomainsService,
  AppAccess,
  AppContainers,
  AppDisk,
  AppChanges,
  DeployPipeline,
  AppRecovery,
  HostingService,
  AppFixer,
  AppOperations,
  AppTerminal,
];

/**
 * Composes Reposite on embedded defaults; every port can be replaced through `options`.
 * Each call gets its own child container, so several instances live side by side (tests do).
 */
export function createReposite(options: CreateRepositeOptions = {}): Reposite {
  const config: RepositeConfig = {
    ...DEFAULT_CONFIG,
    ...options.config,
    baseImages: { ...DEFAULT_BASE_IMAGES, ...options.config?.baseImages },
  };
  config.dataDir = resolve(config.dataDir);
  // Links are made as `${baseUrl}/path` everywhere: a trailing slash would double up.
  config.baseUrl = config.baseUrl.replace(/\/+$/, "");
  const storage = options.storage ?? createStorage({ driver: crashSafeFsDriver({ base: resolve(config.dataDir, "records") }) });

  const container = rootContainer.createChildContainer();
  container.register(CONFIG, { useValue: config });
  container.register(STORAGE, { useValue: storage });
  container.register(CLOCK, { useValue: options.clock ?? systemClock });
  container.register(IDS, { useValue: options.ids ?? randomIds });
  container.register(LOCKS, { useValue: options.locks ?? createInProcessLocks() });
  container.register(REPO_HOSTS, { useValue: options.repoHosts ?? defaultRepoHosts(options, config) });
  container.register(REPO_HOST_AUTHORIZERS, {
    useValue:
      options.repoHostAuthorizers ??
      (options.githubOAuth ? [createGitHubOAuth({ ...options.githubOAuth, apiUrl: options.github?.apiUrl })] : []),
  });
  // Loaded on first use, so composing never writes a key file.
  container.register(SECRET_KEY, { useValue: () => loadOrCreateSecretKey(config.dataDir, options.secretKey) });
  container.register(MAILER, {
    useValue: options.mailer ?? createOutboxMailer({ dir: resolve(config.dataDir, "outbox"), from: config.mailFrom }),
  });
  container.register(EVENTS, { useValue: options.events ?? createInProcessEvents() });
  if (options.searchNotifier) container.register(SEARCH_NOTIFIER, { useValue: options.searchNotifier });
  if (options.languageModel) container.register(LANGUAGE_MODEL, { useValue: options.languageModel });
  if (options.containerRuntime) container.register(CONTAINER_RUNTIME, { useValue: options.containerRuntime });
  if (options.appRuntime || options.imageBuilder) {
    if (!options.appRuntime || !options.imageBuilder) throw new Error("[reposite] appRuntime and imageBuilder come together: give both.");
    if (options.containerRuntime) throw new Error("[reposite] give either containerRuntime or appRuntime with imageBuilder, not both.");
    container.register(APP_RUNTIME, { useValue: options.appRuntime });
    container.register(IMAGE_BUILDER, { useValue: options.imageBuilder });
    // Hosting (deploys, logs, stop, removal, recovery, metrics, terminal, disk) reads the two ports through one adapter.
    container.register(CONTAINER_RUNTIME, { useValue: containerRuntimeFromPorts(options.imageBuilder, options.appRuntime) });
  }
  container.register(PAYMENT_PROVIDER, { useValue: options.payments ?? freePayments });
  if (options.hostingEntitlements) container.register(HOSTING_ENTITLEMENTS, { useValue: options.hostingEntitlements });
  else container.register(HOSTING_ENTITLEMENTS, { useToken: BillingEntitlements });
  if (options.hosting) container.register(HOSTING_SETTINGS, { useValue: options.hosting });
  if (options.hosting?.replicaLeaseMs) container.register(REPLICA_SETTINGS, { useValue: { leaseMs: options.hosting.replicaLeaseMs } });
  container.register(DNS_RESOLVER, { useValue: isDnsResolver(options.dns) ? options.dns : createNodeDnsResolver(options.dns) });
  if (options.domains) container.register(DOMAIN_SETTINGS, { useValue: options.domains });
  container.register(PAGE_AUTHOR, {
    useValue: options.languageModel ? createAiAuthor(options.languageModel) : createReadmeAuthor(),
  });
  for (const service of SERVICES) container.registerSingleton(service as new (...args: never[]) => unknown);
  options.register?.(container);

  const domains = container.resolve(DomainsService);
  // Custom domains answer from memory: the table is filled from storage now, before any request needs it.
  domains.load().catch((error: unknown) => console.error("[reposite] [domains] loading custom domains failed:", error));
  // Records an earlier release embedded in projects move to their modules' own now, once (their stores wait for it).
  container.resolve(ProjectRecordsSplit).ready().catch((error: unknown) => console.error("[reposite] moving app records out of project records failed (tried again at next use):", error));

  return {
    config,
    container,
    accounts: container.resolve(AccountsService),
    tokens: container.resolve(TokensService),
    projects: container.resolve(ProjectsService),
    repositories: container.resolve(RepositoriesService),
    repoAccess: container.resolve(RepoAccessService),
    repoCheck: container.resolve(RepoCheckService),
    signInLinks: container.resolve(SignInLinks),
    sessions: container.resolve(SessionsService),
    agentLogin: container.resolve(AgentLoginService),
    jobs: container.resolve(JobsService),
    generation: container.resolve(GenerationService),
    pageVersions: container.resolve(PageVersionsService),
    publishing: container.resolve(PublishingService),
    projectRemoval: container.resolve(ProjectRemoval),
    siteCache: container.resolve(SiteCache),
    visits: container.resolve(VisitCounter),
    members: container.resolve(MembersService),
    forum: container.resolve(ForumService),
    hosting: container.resolve(HostingService),
    domainTable: container.resolve(DomainTable),
    domains,
    appFixer: container.resolve(AppFixer),
    appOperations: container.resolve(AppOperations),
    appTerminal: container.resolve(AppTerminal),
    appRoutes: container.resolve(AppRoutes),
    billing: container.resolve(BillingService),
    async close() {
      await container.resolve(ProjectRecordsSplit).ready().catch(() => undefined);
      // Runs under way end `failed` (the server stopped) and are stored; queued runs stay queued.
      await container.resolve(HostingService).close();
      // Jobs still running here end as `aborted`, stored before the storage goes.
      await container.resolve(JobsService).close();
      await container.resolve(PublishingService).idle();
      await domains.close();
      // Page views counted since the last flush are written before the storage goes.
      await container.resolve(VisitCounter).close();
      await container.resolve(ExpiringRecords).close();
      container.resolve(SiteCache).close();
      container.resolve(ProjectCache).close();
      container.resolve(MemberSessionCache).close();
      container.resolve(EdgeRouteTable).close();
      const mailer = container.resolve(MAILER) as Mailer & { close?: () => void };
      mailer.close?.();
      await storage.dispose();
    },
  };
}

function isDnsResolver(dns: DnsResolver | NodeDnsOptions | undefined): dns is DnsResolver {
  return typeof (dns as DnsResolver | undefined)?.resolve4 === "function";
}

function defaultRepoHosts(options: CreateRepositeOptions, config: RepositeConfig): RepoHost[] {
  const hosts = [createGitHubRepoHost(options.github)];
  if (options.gitHosts?.length) {
    hosts.push(createGitRepoHost({ hosts: options.gitHosts, workDir: resolve(config.dataDir, "tmp/git") }));
  }
  // The data directory stays unreadable even when it sits inside an allowed checkout.
  if (options.localRepos?.length) hosts.push(createLocalRepoHost({ folders: options.localRepos, hidden: [config.dataDir] }));
  return hosts;
}
