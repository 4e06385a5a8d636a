export { createDockerRuntime, DEFAULT_NETWORK_HOLDER_IMAGE, type DockerRuntime, type DockerRuntimeOptions } from "./docker-runtime.js";
export { detectDockerRuntime, type DetectDockerOptions } from "./detect-docker.js";
export { createLoopVolumes, detectLoopVolumes, type LoopVolumes, type LoopVolumesOptions } from "./loop-volumes.js";
export { createAppFirewall, type AppFirewall, type AppFirewallOptions, type AppFirewallStatus } from "./app-firewall.js";
export { ALWAYS_DENIED_CIDRS, parseDenyCidrs } from "./deny-cidrs.js";
export { createDockerImageBuilder, type DockerImageBuilder, type DockerImageBuilderOptions } from "./docker-image-builder.js";
export { createDockerAppRuntime, type DockerAppRuntime, type DockerAppRuntimeOptions, type DockerAppSpec } from "./docker-app-runtime.js";
