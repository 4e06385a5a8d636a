import { z } from "zod";
import { idSchema } from "./ids.js";

/** A project's pages: `template` is the landing page, `auth` the sign-in page. */
export const PAGE_KINDS = ["template", "about", "faq", "auth"] as const;

export const pageKindSchema = z
  .enum(PAGE_KINDS, { message: `kind must be one of ${PAGE_KINDS.join(", ")}` })
  .describe("The page: `template` (the landing page), `about`, `faq` or `auth` (the sign-in page)");
export type PageKind = z.output<typeof pageKindSchema>;

/** The largest custom page HTML accepted, in bytes (UTF-8): 5 MB. */
export const MAX_PAGE_HTML_BYTES = 5 * 1024 * 1024;

/** A page version as lists show it: everything but the HTML. */
export const pageVersionSchema = z
  .strictObject({
    id: z.string().describe("The version's id (`ver_…`)"),
    kind: pageKindSchema,
    name: z.string().describe("What changed, in a few words"),
    source: z.enum(["generated", "custom"]).describe("`generated` by an author, or `custom` HTML sent by the owner"),
    design: z.string().nullable().describe("The design the page was rendered in; null for custom HTML"),
    created_at: z.string().describe("`YYYY-MM-DD HH:MM:SS` UTC"),
    current: z.boolean().describe("This version is the page's current one"),
  })
  .meta({ id: "PageVersion" });
export type PageVersion = z.output<typeof pageVersionSchema>;

/** A version read singly: with its HTML. */
export const pageVersionDetailSchema = pageVersionSchema
  .extend({ html: z.string().describe("The page's HTML") })
  .meta({ id: "PageVersionDetail" });
export type PageVersionDetail = z.output<typeof pageVersionDetailSchema>;

export const pageVersionListSchema = z.array(pageVersionSchema).describe("Newest first");

/** `GET /app/sites/{site_id}/versions?kind=`: one page's versions, or (no kind, or empty) every page's. */
export const pageVersionListQuerySchema = z.object({
  kind: z.union([pageKindSchema, z.literal("")]).optional().describe("Only this page's versions; absent or empty: every page's"),
});

/** `POST /app/sites/{site_id}/versions`: the owner's own HTML for a page; it becomes current. */
export const createPageVersionSchema = z.strictObject({
  kind: pageKindSchema,
  html: z
    .string({ message: "html is required" })
    .min(1, "html must not be empty")
    .describe("The page's HTML, at most 5 MB (over that: `413 html_too_large`)"),
  name: z.string().trim().min(1, "a name saying what changed is required").max(200).describe("What changed, in a few words"),
});
export type CreatePageVersionInput = z.input<typeof createPageVersionSchema>;

/** `PUT /app/sites/{site_id}/actual`: makes an earlier version of a page current again. */
export const makeVersionCurrentSchema = z.strictObject({
  kind: pageKindSchema,
  version_id: idSchema("ver", "version_id").describe("A version of that page of this project"),
});
export type MakeVersionCurrentInput = z.input<typeof makeVersionCurrentSchema>;
