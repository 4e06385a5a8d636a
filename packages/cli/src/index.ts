export { runCli, type CliIo } from "./cli.js";
export { EXIT } from "./exit-codes.js";
