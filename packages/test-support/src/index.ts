export {
  startFakeGitHub,
  type FakeGitHub,
  type FakeGitHubOptions,
  type FakeGitHubRequest,
  type FakeRepo,
} from "./fake-github.js";
export { createTarball, readTar, writeTar, type TarEntry } from "./tar.js";
export { repoHostContract, type RepoHostContractSetup } from "./contracts/repo-host-contract.js";
export * from "./contracts/storage-contract.js";
export * from "./contracts/locks-contract.js";
export { readOutbox, lastMailTo, linkIn } from "./outbox.js";
export { mailerContract, type MailerContractSetup, type ReceivedMail } from "./contracts/mailer-contract.js";
export { launchBrowser, DEFAULT_CHROMIUM_PATH, CHROMIUM_ARGS, SCREEN_WIDTHS, AXE_WCAG_AA, axeViolations, screenshotDir, checkAtWidths } from "./browser.js";
export { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions, type FakeOpenAIRequest, type FakeOpenAIFailure } from "./fake-openai.js";
export { languageModelContract, type LanguageModelContractSetup, type LanguageModelScript } from "./contracts/language-model-contract.js";
export {
  docker,
  dockerAvailable,
  dockerForTests,
  removeLabelled,
  buildLocalBaseImages,
  waitForHttp,
  LOCAL_BASE_IMAGES,
  type DockerForTests,
  type DockerResult,
  type LocalBaseImages,
} from "./docker.js";
export { samplePages, samplePageList, sparsePages, sampleLanding, sampleAbout, sampleFaq, sampleAuth, sampleSite, STRESS_NAME, stressLanding } from "./sample-pages.js";
export { eventsContract, type EventsContractSetup } from "./contracts/events-contract.js";
export { freePort } from "./free-port.js";
export { startBalancer, type Balancer } from "./balancer.js";
export { startReplicas, type Replica, type Replicas, type ReplicasOptions } from "./replicas.js";
export { removeDataDir } from "./data-dir.js";
export { containerRuntimeContract, type ContainerRuntimeContractSetup } from "./contracts/container-runtime-contract.js";
export {
  createMemoryContainerRuntime,
  type MemoryContainerRuntime,
  type MemoryContainerRuntimeOptions,
  type MemoryContainerInfo,
} from "./memory-container-runtime.js";
export { createMemoryAppRuntime, type MemoryAppRuntime, type MemoryAppRuntimeOptions } from "./memory-app-runtime.js";
export { createMemoryImageBuilder } from "./memory-image-builder.js";
export { startImageHost, TEST_PNG, TEST_SVG, type ImageHost } from "./image-host.js";
export { codeTestHost } from "./code-test-host.js";
export { getWithHost } from "./get-with-host.js";
export { failure } from "./repo-errors.js";
export { git, GIT_ENV } from "./git.js";
export {
  startFakeStripe,
  FAKE_STRIPE_PRICES,
  type FakeStripe,
  type FakeStripeOptions,
  type FakeStripeFailure,
  type FakeStripePriceInput,
  type FakeStripeRequest,
  type FakeStripeWebhook,
  type StripeObject,
} from "./fake-stripe.js";
export { parseStripeForm, type FormObject, type FormValue } from "./stripe-form.js";
export { paymentProviderContract, type PaymentProviderContractSetup, type SignedWebhook } from "./contracts/payments-contract.js";
export {
  createMemoryPayments,
  MEMORY_PAYMENTS_CATALOG,
  MEMORY_SIGNATURE_HEADER,
  type MemoryPayments,
  type MemoryPaymentsOptions,
  type MemoryCheckout,
  type WebhookDelivery,
  type EventInput,
} from "./memory-payments.js";
export {
  startCaddy,
  testCaddyfile,
  DEFAULT_CADDY_PATH,
  type CaddyOptions,
  type CaddyAnswer,
  type RunningCaddy,
  type TestCaddyfileOptions,
} from "./caddy.js";
export { startPebble, type Pebble, type PebbleOptions } from "./pebble.js";
export { startDnsServer, dnsmasqAvailable, type DnsServer, type DnsRecords } from "./dns-server.js";
export { buildLocalGoImage, LOCAL_GO_IMAGE } from "./go-image.js";
export { buildLocalPythonImage, LOCAL_PYTHON_IMAGE } from "./python-image.js";
export { buildLocalRustImage, LOCAL_RUST_IMAGE } from "./rust-image.js";
export { buildLocalBunImage, LOCAL_BUN_IMAGE } from "./bun-image.js";
export { buildLocalPauseImage, LOCAL_PAUSE_IMAGE } from "./pause-image.js";
export { buildLocalNginxImage, LOCAL_NGINX_IMAGE } from "./nginx-image.js";
export { README_CORPUS, type ReadmeFixture } from "./readme-corpus/index.js";
export { readmeSitePages, type ReadmeSite } from "./readme-corpus/site-pages.js";
export { REAL_READMES, type RealReadme } from "./readme-corpus/real/index.js";
export { CHECKS as REAL_README_CHECKS, serverPathProblems, visibleText, type CheckedSite, type SiteCheck } from "./readme-corpus/real/site-checks.js";
export {
  loadRepoCorpus,
  judgeRepoCheck,
  type CorpusEntry,
  type CorpusEntryFile,
  type CorpusExpectation,
  type CorpusOrigin,
  type CorpusVerdict,
  type RepoCheckAnswer,
} from "./repo-corpus/index.js";
export { startPostgres, postgresForTests, POSTGRES_BIN, type TestPostgres, type PostgresForTests } from "./postgres.js";
export { ensureSwarm, networkVantage, type NetworkVantage, type VantageEngine } from "./swarm.js";
export { startTwoNodeSwarm, type SwarmNode, type TwoNodeSwarm } from "./second-node.js";
export { startRegistry, REGISTRY_BIN, type TestRegistry } from "./registry.js";
export { imageBuilderContract, type ImageBuilderContractSetup } from "./contracts/image-builder-contract.js";
export { appRuntimeContract, localVantage, type AppRuntimeContractSetup, type Vantage, type VantageAnswer } from "./contracts/app-runtime-contract.js";
