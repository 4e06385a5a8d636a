export type { SourceTree } from "./source-tree.js";
export { sourceTreeFromFiles } from "./source-tree.js";
export { sourceTreeFromArchive, DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits } from "./source-tree-from-archive.js";
export {
  DEFAULT_BASE_IMAGES,
  type AutoBuild,
  type BaseImages,
  type DockerfileAnalysis,
  type RepoCheckResult,
  type SetupNote,
  type SetupVar,
} from "./repo-check.js";
export { analyzeDockerfile } from "./dockerfile-analysis.js";
export { parseDockerfile } from "./dockerfile-parser.js";
export { findDockerfile } from "./find-dockerfile.js";
export { findSetupVars } from "./setup-vars.js";
export { findSetupNotes } from "./setup-notes.js";
export { detectAutoBuild } from "./auto/detect.js";
export { RepoCheckService } from "./repo-check-service.js";
