import { Agent } from "node:https";
import { rootCertificates } from "node:tls";
import acme from "acme-client";
import type { CertificateIssuer } from "@reposite/core";

export interface AcmeIssuerOptions {
  /** The CA's ACME directory, for example Let's Encrypt's `https://acme-v02.api.letsencrypt.org/directory`. */
  directoryUrl: string;
  /** The account's contact, if the operator gives one. */
  email?: string;
  /** Extra CA certificates (PEM) trusted for the directory's own HTTPS: a test CA such as pebble's. */
  caPem?: string;
  /** The account key (PEM), made and stored once per directory. */
  accountKey: () => Promise<string>;
}

/** Agents by directory origin: acme-client has one shared axios instance, so each directory's trust is picked per request. */
const agents = new Map<string, Agent>();
let interceptorAdded = false;

function trustForDirectory(directoryUrl: string, caPem: string): void {
  agents.set(new URL(directoryUrl).origin, new Agent({ ca: [...rootCertificates, caPem], keepAlive: true }));
  if (interceptorAdded) return;
  interceptorAdded = true;
  acme.axios.interceptors.request.use((config) => {
    const agent = config.url ? agents.get(originOf(config.url)) : undefined;
    if (agent) config.httpsAgent = agent;
    return config;
  });
}

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
};

/**
 * The CA over ACME with `acme-client`: one account per directory (terms agreed), a new P-256 key
 * per certificate, HTTP-01 only (answered by the server's challenge route on port 80). The
 * client's own pre-check of the challenge URL is skipped: the server often cannot reach itself by
 * its public name, and the CA checks anyway.
 */
export function createAcmeIssuer(options: AcmeIssuerOptions): CertificateIssuer {
  if (options.caPem) trustForDirectory(options.directoryUrl, options.caPem);
  let client: Promise<acme.Client> | undefined;
  const clientOnce = () =>
    (client ??= options
      .accountKey()
      .then(async (accountKey) => {
        // Polls orders from 1 s on (acme-client's default starts at 5 s): a CA usually validates within seconds.
        const made = new acme.Client({ directoryUrl: options.directoryUrl, accountKey, backoffMin: 1000, backoffMax: 30_000, backoffAttempts: 12 });
        await findOrCreateAccount(made, options.email);
        return made;
      })
      .catch((error: unknown) => {
        client = undefined;
        throw error;
      }));
  return {
    async issue(domain, answers) {
      const acmeClient = await clientOnce();
      const key = await acme.crypto.createPrivateEcdsaKey("P-256");
      const [, csr] = await acme.crypto.createCsr({ commonName: domain, altNames: [domain] }, key);
      const chainPem = await acmeClient.auto({
        csr,
        challengePriority: ["http-01"],
        skipChallengeVerification: true,
        challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
          if (challenge.type !== "http-01") throw new Error(`the CA offered only ${challenge.type}; the server answers http-01`);
          await answers.put(challenge.token, keyAuthorization);
        },
        challengeRemoveFn: async (_authz, challenge) => {
          if (challenge.type === "http-01") await answers.remove(challenge.token);
        },
      });
      return { chainPem, keyPem: key.toString() };
    },
  };
}

/**
 * The account of the stored key, looked up first (`onlyReturnExisting`) and registered only when
 * the CA does not know it: acme-client's own registration of a known key sends an update some
 * CAs (pebble) refuse.
 */
async function findOrCreateAccount(client: acme.Client, email: string | undefined): Promise<void> {
  try {
    await client.createAccount({ onlyReturnExisting: true });
    return;
  } catch {
    // Not known to this CA (accountDoesNotExist): registered below, where a real failure is reported.
  }
  await client.createAccount({ termsOfServiceAgreed: true, ...(email ? { contact: [`mailto:${email}`] } : {}) });
}
