export { createDockerRuntime, type DockerRuntime, type DockerRuntimeOptions } from "./docker-runtime.js";
export { detectDockerRuntime, type DetectDockerOptions } from "./detect-docker.js";
