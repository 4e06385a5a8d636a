import type { IssuedCertificate } from "./certificate.js";

/** Where the answers to a CA's HTTP-01 challenges are put while it looks (`/.well-known/acme-challenge/<token>`). */
export interface HttpChallengeAnswers {
  /** May resolve later (a record written): the CA is told to look only once it has. */
  put(token: string, keyAuthorization: string): void | Promise<void>;
  remove(token: string): void | Promise<void>;
}

/**
 * A certificate authority speaking ACME (the server's is `acme-client` on the operator's
 * directory). Proves control of a name over HTTP-01 only: the server answers the CA's request on
 * port 80 of the name from `answers`.
 */
export interface CertificateIssuer {
  /** Orders a certificate for `domain` with a new private key; rejects when the CA refuses or validation fails. */
  issue(domain: string, answers: HttpChallengeAnswers): Promise<IssuedCertificate>;
}
