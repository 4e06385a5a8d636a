import type { CopiedFile } from "./copied-files.js";

/**
 * Where a web server in the image listens, read from the config files the Dockerfile copies in:
 * nginx `listen` (in `/etc/nginx/…`, including the official image's `templates/*.template`, which
 * it fills from the environment at start), Apache `Listen` (`/usr/local/apache2/conf/…`,
 * `/etc/apache2/…`) and Caddyfile site addresses (`/etc/caddy/Caddyfile`). HTTPS (`ssl`, `quic`)
 * listeners are left out: the proxy reaches the app over plain HTTP.
 */
export interface ServerListen {
  /** TCP ports, in the order the config names them. */
  ports: number[];
  /** Variables a listener takes its port from (`listen ${PORT}`) that the image does not set. */
  variables: string[];
  /** The config files read. */
  files: string[];
}

export function isServerConfigPath(path: string): boolean {
  return NGINX.test(path) || APACHE.test(path) || CADDY.test(path);
}

const NGINX = /^(\/etc\/nginx\/|\/usr\/local\/openresty\/nginx\/conf\/|\/opt\/bitnami\/nginx\/conf\/)/;
const APACHE = /^(\/usr\/local\/apache2\/conf\/|\/etc\/apache2\/|\/etc\/httpd\/)/;
const CADDY = /^\/etc\/caddy\/Caddyfile$/;

export function serverListen(files: CopiedFile[], env: Record<string, string>): ServerListen | null {
  const ports: number[] = [];
  const variables: string[] = [];
  const read: string[] = [];
  const add = (address: string) => {
    const variable = /\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/.exec(address);
    let portText = variable ? env[variable[1]!] : /(?:^|:)(\d{1,5})$/.exec(address)?.[1];
    if (variable && portText === undefined) {
      if (!variables.includes(variable[1]!)) variables.push(variable[1]!);
      return;
    }
    portText = portText?.trim();
    const port = Number(portText);
    if (portText && Number.isInteger(port) && port > 0 && port < 65536 && !ports.includes(port)) ports.push(port);
  };

  for (const file of files) {
    const text = file.text.replace(/#.*$/gm, "");
    const before = ports.length + variables.length;
    if (NGINX.test(file.path)) {
      for (const match of text.matchAll(/(?:^|[;{\s])listen\s+([^;]+);/g)) {
        const [address, ...options] = match[1]!.trim().split(/\s+/);
        if (address!.startsWith("unix:") || options.some((option) => option === "ssl" || option === "quic")) continue;
        add(address!);
      }
    } else if (APACHE.test(file.path)) {
      for (const match of text.matchAll(/^\s*Listen\s+(\S+)(\s+https)?/gim)) if (!match[2]) add(match[1]!);
    } else if (CADDY.test(file.path)) {
      for (const match of file.text.matchAll(/^([^\s#{][^{\n]*?)\s*\{\s*$/gm)) {
        for (const site of match[1]!.split(/[\s,]+/)) {
          const plain = /^(?:http:\/\/)?[^/:]*:(\d{1,5}|\{\$[A-Za-z_][A-Za-z0-9_]*\})$/.exec(site);
          if (plain) add(plain[1]!.replace(/^\{\$(.*)\}$/, "$$$1"));
        }
      }
    }
    if (ports.length + variables.length > before) read.push(file.source);
  }
  return read.length === 0 ? null : { ports, variables, files: read };
}
