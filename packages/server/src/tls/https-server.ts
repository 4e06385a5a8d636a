import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import { createSecureContext, type SecureContext } from "node:tls";
import type { CertificateService } from "@reposite/core";

type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The HTTPS listener of built-in ACME: each handshake's SNI name gets its certificate from memory
 * (`CertificateService.forName`). A name without one — unknown, not verified, not issued yet — or
 * a handshake without SNI (an IP address) gets no certificate at all: the handshake fails, so
 * nobody is shown another name's certificate.
 */
export function createHttpsServer(certificates: CertificateService, listener: NodeListener): Server {
  // One secure context per certificate, made on its first handshake; a renewal (new serial) makes a new one.
  const contexts = new Map<string, { serial: string; context: SecureContext }>();
  return createServer(
    {
      SNICallback: (servername, done) => {
        const certificate = certificates.forName(servername);
        if (!certificate) {
          contexts.delete(servername.toLowerCase());
          return done(new Error(`no certificate for ${servername}`));
        }
        let made = contexts.get(certificate.domain);
        if (made?.serial !== certificate.serial) {
          try {
            made = { serial: certificate.serial, context: createSecureContext({ cert: certificate.chainPem, key: certificate.keyPem }) };
          } catch (error) {
            return done(error as Error);
          }
          contexts.set(certificate.domain, made);
        }
        done(null, made.context);
      },
    },
    listener,
  );
}
