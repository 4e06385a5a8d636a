import { createPrivateKey, X509Certificate } from "node:crypto";

/** A certificate the server serves by SNI, its private key open (in memory only). */
export interface Certificate {
  /** The name it was issued for: lower case, ASCII (punycode). */
  domain: string;
  /** The leaf first, then the intermediates, PEM, as the CA sent them. */
  chainPem: string;
  keyPem: string;
  /** The leaf's serial number (hex, as `X509Certificate.serialNumber` writes it). */
  serial: string;
  notBefore: string;
  expiresAt: string;
  issuedAt: string;
}

/** A certificate as stored: the key sealed with the server's key (`SecretBox`, context its storage key). */
export interface CertificateRecord {
  domain: string;
  chain_pem: string;
  key_sealed: string;
  serial: string;
  not_before: string;
  expires_at: string;
  issued_at: string;
}

/** What a CA answered an order with. */
export interface IssuedCertificate {
  chainPem: string;
  keyPem: string;
}

/**
 * Reads the leaf of a chain a CA sent, refusing one that does not fit: not for `domain`, or not
 * made for `keyPem` (a certificate that would fail every handshake is never stored).
 */
export function readIssued(domain: string, issued: IssuedCertificate, issuedAt: Date): Certificate {
  const leaf = new X509Certificate(issued.chainPem);
  if (!leaf.checkHost(domain)) throw new Error(`the CA's certificate is not for ${domain} (${leaf.subjectAltName ?? leaf.subject})`);
  if (!leaf.checkPrivateKey(createPrivateKey(issued.keyPem))) throw new Error(`the CA's certificate for ${domain} does not match its key`);
  return {
    domain,
    chainPem: issued.chainPem,
    keyPem: issued.keyPem,
    serial: leaf.serialNumber,
    notBefore: new Date(leaf.validFrom).toISOString(),
    expiresAt: new Date(leaf.validTo).toISOString(),
    issuedAt: issuedAt.toISOString(),
  };
}
