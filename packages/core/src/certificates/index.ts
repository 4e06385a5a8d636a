export { readIssued, type Certificate, type CertificateRecord, type IssuedCertificate } from "./certificate.js";
export type { CertificateIssuer, HttpChallengeAnswers } from "./certificate-issuer.js";
export { CertificateStore, certificateKey } from "./certificate-store.js";
export { CertificateService, DEFAULT_CERTIFICATE_SETTINGS, type CertificateSettings, type RenewalTurn } from "./certificate-service.js";
export { HttpChallenges } from "./http-challenges.js";
