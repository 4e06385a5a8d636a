export { runCli, type CliIo } from "./cli.js";
export { EXIT } from "./exit-codes.js";
export { accountCommands } from "./commands/index.js";
export { COMMAND_FOR_OPERATION, type CommandCoverage } from "./operation-coverage.js";
