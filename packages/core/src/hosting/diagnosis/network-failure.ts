/** How a connection from a build failed: its name not found, its certificate refused, nobody answering, or no answer in time. */
export type NetworkFailure = "dns" | "tls" | "refused" | "timeout";

/**
 * What the tools print when a connection fails, by kind, most telling first: TLS before DNS (a
 * certificate error can name the host it looked up), DNS before refused. Written against the
 * tools' own output (Node's and curl's error codes, Go's net package, Python's socket errors,
 * Bun's codes), which is the same under either builder.
 */
const FAILURES: [NetworkFailure, RegExp][] = [
  [
    "tls",
    /SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|self[- ]signed certificate|UNABLE_TO_GET_ISSUER_CERT|unable to get local issuer certificate|UNABLE_TO_VERIFY_LEAF_SIGNATURE|CERT_HAS_EXPIRED|certificate has expired|certificate signed by unknown authority|CERTIFICATE_VERIFY_FAILED|certificate verify failed|SSL certificate problem|SSL peer certificate|SSLError|confirming the ssl certificate|x509: |tls: |Certificate verification failed|ERR_TLS_/i,
  ],
  [
    "dns",
    /EAI_AGAIN|ENOTFOUND|getaddrinfo|Name or service not known|Temporary failure in name resolution|Temporary failure resolving|no such host|Could not resolve host|DNSResolveFailed|dns error|failed to lookup address|nodename nor servname|DNS lookup error|server misbehaving|NameResolutionError|Failed to resolve/i,
  ],
  ["refused", /ECONNREFUSED|connection refused|ConnectionRefused|Could not connect to server|Failed to connect to|ENETUNREACH|network is unreachable|EHOSTUNREACH|no route to host|ECONNRESET|connection reset/i],
  ["timeout", /ETIMEDOUT|ESOCKETTIMEDOUT|timed out|i\/o timeout|ConnectTimeout|\bTimeout\b/i],
];

/** The kind of connection failure `text` reports, or null when it reports none. */
export function networkFailure(text: string): NetworkFailure | null {
  return FAILURES.find(([, pattern]) => pattern.test(text))?.[0] ?? null;
}

/** The host a connection error names (`lookup proxy.golang.org on …`, `ENOTFOUND repo.yarnpkg.com`), or null. */
export function hostInError(text: string): string | null {
  const found =
    /lookup ([a-z0-9.-]+\.[a-z]{2,})\b/i.exec(text) ??
    /Could not resolve host:? ([a-z0-9.-]+\.[a-z]{2,})/i.exec(text) ??
    /(?:ENOTFOUND|EAI_AGAIN) ([a-z0-9.-]+\.[a-z]{2,})/i.exec(text) ??
    /host='([^']+)'/.exec(text) ??
    /resolving '([^']+)'/.exec(text);
  return found?.[1]?.toLowerCase() ?? null;
}

/** How each kind reads in a diagnosis: the title's word, and what it means. */
export const FAILURE_WORDS: Record<NetworkFailure, { short: string; meaning: string }> = {
  dns: { short: "DNS", meaning: "its name could not be looked up (DNS): the build has no way out to the internet, or no name server that knows it" },
  tls: {
    short: "TLS",
    meaning:
      "the secure connection failed (TLS): what answered showed a certificate the build does not trust, as a filtering proxy or firewall between the build and the internet does",
  },
  refused: { short: "refused", meaning: "the connection was refused or cut: nothing answered at that address, or a firewall turned the build away" },
  timeout: { short: "timed out", meaning: "the connection timed out: nothing answered, as when a firewall drops the build's traffic" },
};
