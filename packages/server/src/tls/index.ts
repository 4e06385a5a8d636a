export { acmeChallengeRoute } from "./acme-challenge-route.js";
export { createAcmeIssuer, type AcmeIssuerOptions } from "./acme-issuer.js";
export { createBuiltInAcme, LETS_ENCRYPT_DIRECTORY, type AcmeSettings } from "./built-in-acme.js";
export { createHttpsServer } from "./https-server.js";
