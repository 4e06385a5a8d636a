import { z } from "zod";

/** `PUT …/domain`. */
export const domainInputSchema = z
  .strictObject({
    domain: z
      .string({ message: "domain is required (a name such as www.example.com)" })
      .max(1000)
      .describe("The name to serve the project on (`www.example.com`, `bücher.example`, or a bare `example.com`)"),
  })
  .meta({ id: "DomainInput" });
export type DomainInput = z.input<typeof domainInputSchema>;

export const DNS_RECORD_TYPES = ["CNAME", "A", "AAAA", "TXT"] as const;
export const dnsRecordTypeSchema = z.enum(DNS_RECORD_TYPES);
export type DnsRecordType = z.output<typeof dnsRecordTypeSchema>;

/** One DNS record the person adds at their DNS provider. */
export const dnsRecordSchema = z
  .strictObject({
    type: dnsRecordTypeSchema,
    name: z.string().describe("The full name, without a trailing dot (`www.example.com`, `_reposite.example.com`)"),
    host: z.string().describe("The same name relative to the zone, as most providers' forms ask for it (`www`, `@`, `_reposite`)"),
    value: z.string(),
    purpose: z.string().describe("Why it is needed, for a person"),
  })
  .meta({ id: "DnsRecord" });
export type DnsRecordView = z.output<typeof dnsRecordSchema>;

/** A project's domain (`domain` null when it has none). */
export const domainSchema = z
  .strictObject({
    domain: z.string().nullable().describe("Lower case ASCII, punycode for internationalised names: what DNS and certificates use"),
    domain_unicode: z.string().nullable().describe("The same name as people write it (`bücher.example`)"),
    apex: z.boolean().describe("A bare domain (`example.com`): A/AAAA and TXT records instead of a CNAME"),
    records: z.array(dnsRecordSchema).describe("The DNS records to add"),
    verified: z.boolean().describe("DNS was found pointing here: the domain serves the project and gets its certificate"),
    verified_at: z.string().nullable(),
    taken_at: z
      .string()
      .optional()
      .describe(
        "Only when another project verified this domain first: when this project's unverified claim was dropped. The domain does not serve this project; connect another, or this one again once it is free",
      ),
  })
  .meta({ id: "Domain" });
export type DomainView = z.output<typeof domainSchema>;

/** `GET …/domain`: the domain with whether it answers now. */
export const domainReadSchema = domainSchema
  .extend({
    live: z.boolean().describe("The project's site answers on the domain (its app at `/app/` too)"),
    live_url: z.string().nullable().describe("Where it answered (`https://www.example.com/`), or null"),
    live_reason: z.string().nullable().describe("Why it is not live, for a person; null when it is"),
  })
  .meta({ id: "DomainRead" });
export type DomainReadView = z.output<typeof domainReadSchema>;

/** One record as DNS answered it now. */
export const dnsCheckRecordSchema = z.strictObject({
  type: dnsRecordTypeSchema,
  name: z.string(),
  expected: z.string().nullable().describe("What it should be; null for records that should not be there (addresses elsewhere)"),
  found: z.array(z.string()).describe("What DNS answered, in order"),
  ok: z.boolean(),
  proxied_by: z.string().optional().describe("Set when the addresses found are a proxying DNS provider's (`Cloudflare`)"),
  error: z.string().optional().describe("Set when DNS could not be asked (`ESERVFAIL`, `ETIMEOUT`, …)"),
});
export type DnsCheckRecord = z.output<typeof dnsCheckRecordSchema>;

/** What DNS says now. */
export const dnsCheckSchema = z
  .strictObject({
    found: z.boolean().describe("The records needed were all found, pointing here"),
    message: z.string().describe("What was found and what is missing, in sentences, with what to do next"),
    records: z.array(dnsCheckRecordSchema),
  })
  .meta({ id: "DnsCheck" });
export type DnsCheck = z.output<typeof dnsCheckSchema>;

/** `POST …/domain/verify`: the domain and what DNS says now. */
export const domainVerifySchema = domainSchema.extend({ dns: dnsCheckSchema }).meta({ id: "DomainVerification" });
export type DomainVerifyView = z.output<typeof domainVerifySchema>;

// ---- TLS ask -------------------------------------------------------------------------------------

/** `GET /tls/ask?domain=<name>`: the name a TLS terminator wants a certificate for. */
export const tlsAskQuerySchema = z.object({
  domain: z.string().optional().describe("The name, as the TLS handshake asked for it (missing: `400 domain_required`)"),
});

/** Why a name may get a certificate. */
export const TLS_ASK_KINDS = ["custom_domain", "site_address", "service"] as const;

export const tlsAskAnswerSchema = z
  .strictObject({
    allowed: z.literal(true),
    domain: z.string().describe("The name as asked, lower case ASCII without a trailing dot"),
    kind: z.enum(TLS_ASK_KINDS).describe("A verified custom domain, a published site's address, or the service's own host"),
  })
  .meta({ id: "TlsAsk" });
export type TlsAskAnswer = z.output<typeof tlsAskAnswerSchema>;
export type TlsAskKind = TlsAskAnswer["kind"];
