import { z } from "zod";

// What control-plane servers tell the edges (`reposite edge`, docs/deploy/edge-nginx.md): the route
// table, the published sites' files, and back the page views nginx served.

const targetSchema = z.strictObject({ host: z.string(), port: z.number().int() });

/** `GET /edge/routes?after=<version>`: the version the edge already has (0 or left out: none). */
export const edgeRoutesQuerySchema = z.object({
  after: z
    .string({ message: "after must be a whole number, 0 or more." })
    .regex(/^\d{1,16}$/, "after must be a whole number, 0 or more.")
    .transform(Number)
    .optional()
    .describe("The version the edge serves now: the answer waits (up to about 25 s) while it is still the newest"),
});

export const edgeFeedSchema = z
  .strictObject({
    version: z.number().int().describe("Grows with every change of routes or published sites; a restarted control plane starts above its last one"),
    sites_domain: z.string().describe("Sites answer at `<slug>.<sites_domain>` (host name, lower case)"),
    apps: z.array(
      z.strictObject({
        site_id: z.string(),
        slug: z.string(),
        target: targetSchema.nullable().describe("Where the running app answers; null while it is not running"),
        gated: z.boolean().describe("Members only: the edge sends its `/app/` to the control plane"),
      }),
    ),
    domains: z.array(z.strictObject({ domain: z.string(), slug: z.string() })).describe("Verified custom domains only"),
    sites: z
      .array(z.strictObject({ slug: z.string(), site_id: z.string(), version: z.string().describe("Changes whenever the site's files do") }))
      .describe("Published sites; fetch each new `version` from `/edge/sites/{slug}`"),
    certificates: z
      .array(z.strictObject({ name: z.string(), version: z.string().describe("Changes at each renewal (the certificate's serial)") }))
      .describe("Built-in ACME's certificates to serve by SNI; fetch each new `version` from `/edge/certificates/{name}` (empty without built-in ACME)"),
  })
  .meta({ id: "EdgeFeed" });
export type EdgeFeedView = z.output<typeof edgeFeedSchema>;

export const edgeSiteParamsSchema = z.object({ slug: z.string().regex(/^[a-z0-9-]{1,63}$/, "slug must be a site's slug.") });

export const edgeSiteSchema = z
  .strictObject({
    slug: z.string(),
    site_id: z.string(),
    version: z.string(),
    public_url: z.string().describe("The address the files name (the verified custom domain's while there is one)"),
    snapshot: z.looseObject({ files: z.record(z.string(), z.looseObject({})) }).describe("The published snapshot, every body inline (the preview image too)"),
  })
  .meta({ id: "EdgeSite" });
export type EdgeSiteView = z.output<typeof edgeSiteSchema>;

export const edgeVisitsInputSchema = z
  .strictObject({
    visits: z
      .array(
        z.strictObject({
          site_id: z.string().max(100),
          method: z.string().max(16),
          path: z.string().max(4096),
          user_agent: z.string().max(1024).optional(),
          count: z.number().int().min(1).max(1_000_000).optional().describe("Alike page views this entry stands for (the edge sends a repeated log line once); 1 when absent"),
        }),
      )
      .max(10_000),
  })
  .meta({ id: "EdgeVisits" });

export const edgeVisitsAnswerSchema = z.strictObject({ counted: z.number().int().describe("Page views among them (bots and non-pages are left out)") });

export const edgeCertificateParamsSchema = z.object({
  name: z
    .string()
    .max(253)
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/, "name must be a host name in lower case, such as www.example.com."),
});

export const edgeCertificateSchema = z
  .strictObject({
    name: z.string(),
    version: z.string().describe("The certificate's serial, as the feed lists it"),
    expires_at: z.string(),
    key_pem: z.string().describe("The private key (PEM): only ever sent to an edge"),
    chain_pem: z.string().describe("The certificate, then its intermediates (PEM)"),
  })
  .meta({ id: "EdgeCertificate" });
export type EdgeCertificateView = z.output<typeof edgeCertificateSchema>;
