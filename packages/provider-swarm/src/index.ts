export { createSwarmAppRuntime, type SwarmAppRuntime } from "./swarm-app-runtime.js";
export { createSwarmImageBuilder } from "./swarm-image-builder.js";
export { swarmOptionsFromEnv, DEFAULT_HEALTH_TIMING, type SwarmOptions, type SwarmRegistry, type SwarmHealthTiming, type SwarmReach } from "./swarm-options.js";
export { PROBE_PATH } from "./health-probe.js";
