export { createDockerRuntime, type DockerRuntime, type DockerRuntimeOptions } from "./docker-runtime.js";
export { detectDockerRuntime, type DetectDockerOptions } from "./detect-docker.js";
export { createLoopVolumes, detectLoopVolumes, type LoopVolumes, type LoopVolumesOptions } from "./loop-volumes.js";
