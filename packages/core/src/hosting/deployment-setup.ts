import type { DeploymentSetup } from "@reposite/contract";

// The setup's shapes and its input rules are the HTTP contract's (`PUT …/deployment`).
export {
  BUILD_MODES,
  BARE_BASE_IMAGES,
  setupInputSchema,
  type BuildMode,
  type BareBaseImage,
  type DeploymentSetup,
  type SetupInput,
} from "@reposite/contract";

export const DEFAULT_SETUP: DeploymentSetup = {
  build_mode: "dockerfile",
  dockerfile_path: "Dockerfile",
  base_image: null,
  port: 3000,
  ref: "HEAD",
  health_path: "/",
  volume_path: null,
  root_dir: null,
};
