import type { CommandDef } from "citty";
import type { CommandEnv } from "../command.js";
import { logoutCommand, whoamiCommand } from "./account.js";
import { deployCommand } from "./deploy.js";
import { domainCommand } from "./domain.js";
import { envCommand } from "./env.js";
import { generateCommand } from "./generate.js";
import { loginCommand } from "./login.js";
import { logsCommand } from "./logs.js";
import { openCommand } from "./open.js";
import { publishCommand } from "./publish.js";
import { sitesCommand } from "./sites.js";
import { statusCommand } from "./status.js";

/** Every command of a person's (or an agent's) account, in the order `--help` lists them. */
export function accountCommands(env: CommandEnv): Record<string, CommandDef> {
  return {
    login: loginCommand(env),
    logout: logoutCommand(env),
    whoami: whoamiCommand(env),
    sites: sitesCommand(env),
    generate: generateCommand(env),
    publish: publishCommand(env),
    deploy: deployCommand(env),
    logs: logsCommand(env),
    status: statusCommand(env),
    env: envCommand(env),
    domain: domainCommand(env),
    open: openCommand(env),
  };
}
