import type {
  BareBaseImage as ContractBareBaseImage,
  BuildMode as ContractBuildMode,
  DeploymentSetup as ContractDeploymentSetup,
  DeploymentView as ContractDeploymentView,
  DeployStarted as ContractDeployStarted,
  Diagnosis as ContractDiagnosis,
  DiskUsage,
  EnvView as ContractEnvView,
  FixStarted as ContractFixStarted,
  LastRunView,
  MetricsView as ContractMetricsView,
  RepoCheckResult as ContractRepoCheckResult,
  ResourcesView as ContractResourcesView,
  ResourceStep as ContractResourceStep,
  ResourceView as ContractResourceView,
  RunDetailView as ContractRunDetailView,
  RunStatus as ContractRunStatus,
  RunView as ContractRunView,
  SetupInput,
  SetupVar as ContractSetupVar,
} from "@reposite/contract";
import type { JobStreamEvent } from "../types.js";

// App hosting's shapes, from the contract under the SDK's names.

/** How the app's image is made: the repository's Dockerfile, one Reposite writes (`auto`), or a bare box. */
export type BuildMode = ContractBuildMode;
/** Base images a `bare` box can start from. */
export type BareBaseImage = ContractBareBaseImage;
/** How a project's app is built and run, as the deployment read shows it. */
export type DeploymentSetup = ContractDeploymentSetup;
/** Body of `PUT /app/sites/{site_id}/deployment`: every field optional; the fields sent change, the rest stay. */
export type DeploymentSetupInput = SetupInput;
/** A deploy run's states; `queued` waits for a build slot. */
export type RunStatus = ContractRunStatus;
/** What went wrong in a failed run, for a person: `title`, `detail`, `fix`, and `limit` for a resource that ran out. */
export type Diagnosis = ContractDiagnosis;
/** `last_run` of the deployment read. */
export type LastRun = LastRunView;
/** `GET /app/sites/{site_id}/deployment`: the setup, then the app's state. */
export type DeploymentView = ContractDeploymentView;
/** `GET …/deployment/env`, and the answer of setting it: every name, every value masked. */
export type EnvView = ContractEnvView;
/** `202` answer of `POST …/deployment/deploy`: the job streams the build log. */
export type DeployStarted = ContractDeployStarted;
/** `202` answer of `POST …/deployment/fix`: the fix's own job, streaming every attempt. */
export type FixStarted = ContractFixStarted;
/** One deploy in `GET …/deployment/runs` (the last 20). */
export type RunView = ContractRunView;
/** One run read singly: with the kept end of its log. */
export type RunDetailView = ContractRunDetailView;
/** Disk use of the app: image, writable layer and data volume together against its limit. */
export type StorageUsage = DiskUsage;
/** `GET …/deployment/metrics`: what the app uses now. */
export type MetricsView = ContractMetricsView;
/** One size memory or disk could be bought at. */
export type ResourceStep = ContractResourceStep;
/** One resource (memory or disk) of an app. */
export type ResourceView = ContractResourceView;
/** `GET …/deployment/resources`. */
export type ResourcesView = ContractResourcesView;
/** A setting the app asks for, found in the repository. */
export type SetupVar = ContractSetupVar;
/** `GET /app/sites/{site_id}/repo-check`: the repository read without building it. */
export type RepoCheckResult = ContractRepoCheckResult;

/** Options of `deployment.deployAndFollow()`. */
export interface DeployFollowOptions {
  /** Every event of the deploy's job stream (`delta`s carry the build log). */
  onEvent?: (event: JobStreamEvent) => void;
  signal?: AbortSignal;
}
