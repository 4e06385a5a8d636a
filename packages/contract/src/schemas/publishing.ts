import { z } from "zod";
import { pageKindSchema } from "./page-versions.js";

/** `GET /app/subdomain-check?slug=`: a missing or repeated `slug` is simply not available (`invalid`). */
export const slugCheckQuerySchema = z.object({
  slug: z.string().optional().catch(undefined).describe("The address to check: 3 to 60 characters of `a-z`, `0-9`, `-`"),
});

export const slugCheckSchema = z
  .discriminatedUnion("available", [
    z.strictObject({ available: z.literal(true) }),
    z.strictObject({
      available: z.literal(false),
      reason: z.enum(["invalid", "reserved", "taken"]).describe("`invalid` (not a possible address), `reserved` or `taken`"),
    }),
  ])
  .meta({ id: "SlugCheck" });
export type SlugCheck = z.output<typeof slugCheckSchema>;

/**
 * `POST /app/sites/{site_id}/slug`. Whether the slug is a possible address is the service's
 * question (`422 invalid_slug`, `409 slug_reserved`, `409 slug_taken`), so it answers with its own codes.
 */
export const setSlugSchema = z.strictObject({
  slug: z.string({ message: "slug is required" }).describe("3 to 60 characters of `a-z`, `0-9`, `-`, starting and ending with a letter or digit"),
});
export type SetSlugInput = z.input<typeof setSlugSchema>;

export const slugViewSchema = z
  .strictObject({
    slug: z.string(),
    url: z.string().describe("`https://<slug>.<sites domain>`"),
  })
  .meta({ id: "SlugView" });
export type SlugView = z.output<typeof slugViewSchema>;

/** `POST /app/sites/{site_id}/publish`. */
export const publishSchema = z.strictObject({
  discourse: z
    .boolean({ message: "discourse must be true or false" })
    .optional()
    .describe("Open the community forum; by default as the project's plan says (`community`)"),
});
export type PublishInput = z.input<typeof publishSchema>;

/** `POST /app/sites/{site_id}/publish-page`. */
export const publishPageSchema = z.strictObject({
  kind: pageKindSchema.describe("The page to put live, for example `about`"),
});
export type PublishPageInput = z.input<typeof publishPageSchema>;

/** Something a visitor of the site would run into, said when publishing; the site is published all the same. */
export const publishWarningSchema = z
  .strictObject({
    code: z.enum(["app_not_deployed"]).describe("`app_not_deployed`: the site's main button leads to `/app/`, where no app is deployed"),
    message: z.string().describe("What is wrong and how to fix it, for people"),
  })
  .meta({ id: "PublishWarning" });
export type PublishWarning = z.output<typeof publishWarningSchema>;

export const publishResultSchema = z
  .strictObject({
    url: z.string().describe("The site's address"),
    pages: z.array(pageKindSchema).describe("Pages live on the site now (`template` is the landing page at `/`)"),
    warnings: z.array(publishWarningSchema).describe("What visitors of the site would run into (empty when nothing)"),
  })
  .meta({ id: "PublishResult" });
export type PublishResult = z.output<typeof publishResultSchema>;
