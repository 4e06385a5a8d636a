import "reflect-metadata";
import { resolve } from "node:path";
import { container as rootContainer, type DependencyContainer } from "tsyringe";
import { createStorage } from "unstorage";
import fsDriver from "unstorage/drivers/fs";
import { AccountsService } from "./accounts/accounts-service.js";
import { AgentLoginService } from "./agent-login/agent-login-service.js";
import { createOutboxMailer } from "./defaults/outbox-mailer.js";
import { MAILER, type Mailer } from "./ports/mailer.js";
import { SessionsService } from "./sessions/sessions-service.js";
import { SignInLinks } from "./sessions/sign-in-links.js";
import { RateLimiter } from "./util/rate-limiter.js";
import { CONFIG, type RepositeConfig } from "./config.js";
import { createInProcessLocks } from "./defaults/in-process-locks.js";
import { randomIds } from "./defaults/random-ids.js";
import { systemClock } from "./defaults/system-clock.js";
import { CLOCK, type Clock } from "./ports/clock.js";
import { IDS, type IdGenerator } from "./ports/ids.js";
import { LOCKS, type Locks } from "./ports/locks.js";
import { REPO_HOSTS, type RepoHost } from "./ports/repo-host.js";
import { STORAGE, type RecordStorage } from "./ports/storage.js";
import { ProjectStore } from "./projects/project-store.js";
import { ProjectsService } from "./projects/projects-service.js";
import { createGitHubRepoHost, type GitHubRepoHostOptions } from "./repo-host/index.js";
import { RepositoriesService } from "./repositories/repositories-service.js";
import { TokensService } from "./tokens/tokens-service.js";

export interface CreateRepositeOptions {
  /** Service settings; each has an embedded default for one machine. */
  config?: Partial<RepositeConfig>;
  /** Records; default: unstorage's `fs` driver under `<dataDir>/records`. */
  storage?: RecordStorage;
  /** Repo hosts, first match wins; default: GitHub (public API, or `github` options). */
  repoHosts?: RepoHost[];
  /** Options of the default GitHub repo host, when `repoHosts` is not given. */
  github?: GitHubRepoHostOptions;
  /** Outgoing mail; default: one file per message in `<dataDir>/outbox`. */
  mailer?: Mailer;
  clock?: Clock;
  ids?: IdGenerator;
  locks?: Locks;
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
  readonly signInLinks: SignInLinks;
  readonly sessions: SessionsService;
  readonly agentLogin: AgentLoginService;
  /** Lets go of what the ports hold (storage handles, timers). */
  close(): Promise<void>;
}

export const DEFAULT_CONFIG: RepositeConfig = {
  baseUrl: "http://localhost:3000",
  sitesDomain: "localhost:3000",
  dataDir: ".reposite",
  mailFrom: "Reposite <no-reply@localhost>",
  operatorEmails: [],
};

/**
 * Composes Reposite on embedded defaults; every port can be replaced through `options`.
 * Each call gets its own child container, so several instances live side by side (tests do).
 */
export function createReposite(options: CreateRepositeOptions = {}): Reposite {
  const config: RepositeConfig = { ...DEFAULT_CONFIG, ...options.config };
  config.dataDir = resolve(config.dataDir);
  const storage = options.storage ?? createStorage({ driver: fsDriver({ base: resolve(config.dataDir, "records") }) });

  const container = rootContainer.createChildContainer();
  container.register(CONFIG, { useValue: config });
  container.register(STORAGE, { useValue: storage });
  container.register(CLOCK, { useValue: options.clock ?? systemClock });
  container.register(IDS, { useValue: options.ids ?? randomIds });
  container.register(LOCKS, { useValue: options.locks ?? createInProcessLocks() });
  container.register(REPO_HOSTS, { useValue: options.repoHosts ?? [createGitHubRepoHost(options.github)] });
  container.register(MAILER, {
    useValue: options.mailer ?? createOutboxMailer({ dir: resolve(config.dataDir, "outbox"), from: config.mailFrom }),
  });
  const services = [
    AccountsService,
    TokensService,
    ProjectStore,
    ProjectsService,
    RepositoriesService,
    RateLimiter,
    SignInLinks,
    SessionsService,
    AgentLoginService,
  ];
  for (const service of services) {
    container.registerSingleton(service as new (...args: never[]) => unknown);
  }
  options.register?.(container);

  return {
    config,
    container,
    accounts: container.resolve(AccountsService),
    tokens: container.resolve(TokensService),
    projects: container.resolve(ProjectsService),
    repositories: container.resolve(RepositoriesService),
    signInLinks: container.resolve(SignInLinks),
    sessions: container.resolve(SessionsService),
    agentLogin: container.resolve(AgentLoginService),
    async close() {
      const mailer = container.resolve(MAILER) as Mailer & { close?: () => void };
      mailer.close?.();
      await storage.dispose();
    },
  };
}
