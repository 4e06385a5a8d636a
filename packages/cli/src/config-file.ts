import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CliError, EXIT } from "./exit-codes.js";

/** What `reposite login` keeps between runs. The token is a secret: the file is the user's alone (0600). */
export interface StoredLogin {
  /** The server the token belongs to; the token is never sent anywhere else. */
  server: string;
  token: string;
  token_id: string;
  user: { id: string; email: string };
  expires_at: string | null;
}

export interface ConfigFile {
  login?: StoredLogin;
}

/** `$XDG_CONFIG_HOME/reposite/config.json`, else `~/.config/reposite/config.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.trim() || join(homedir(), ".config");
  return join(base, "reposite", "config.json");
}

export async function readConfig(path = configPath()): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as ConfigFile;
  } catch {
    // Reported below.
  }
  throw new CliError(`${path} is not a reposite config file (not a JSON object). Remove it and log in again.`, EXIT.failed, "bad_config");
}

/**
 * Writes the whole file: a new file of mode 0600 renamed over the old one, so a token is never
 * readable by others, not even for a moment, and a crash leaves the old file whole.
 */
export async function writeConfig(config: ConfigFile, path = configPath()): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
    await chmod(temporary, 0o600);
    await rename(temporary, path);
  } finally {
    await rm(temporary, { force: true });
  }
}
