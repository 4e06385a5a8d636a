import { z } from "zod";

/**
 * Structured content of one page. Authors (the AI, or the README author) write this; designs
 * render it. Keeping content apart from looks lets one text show in any of the 30 designs.
 */
const text = (max: number) => z.string().trim().min(1).max(max);

/**
 * A call to action. Without `href` the design decides where it leads (the app for saas, the
 * repository otherwise); with one, it is the README's own link (a Download page, say).
 */
export const linkSchema = z.object({
  label: text(40),
  href: z.string().trim().max(2048).regex(/^https?:\/\/\S+$/i, "must be an http(s) URL").optional(),
});

/** A table from the README (benchmarks, requirements, comparisons), kept as a table. */
export const tableSchema = z.object({
  header: z.array(z.string().trim().max(120)).min(1).max(8),
  rows: z.array(z.array(z.string().trim().max(300)).min(1).max(8)).min(1).max(40),
});

/**
 * A picture from the README, copied to the site: `src` is a path on the site itself (or a `data:`
 * image), never another host, so a visit makes no third-party request.
 */
export const imageSchema = z.object({ src: z.string().trim().min(1).max(2048), alt: z.string().trim().max(300) });

export const landingContentSchema = z.object({
  kind: z.literal("template"),
  /** For the browser tab and search results. */
  meta: z.object({ title: text(70), description: text(200) }),
  hero: z.object({
    /** The promise, a few words. */
    title: text(90),
    subtitle: text(280),
    /** saas: opens the app; website/landing: opens the repository. */
    primary_cta: linkSchema,
    secondary_cta: linkSchema.optional(),
    /** The README's main screenshot. */
    image: imageSchema.optional(),
  }),
  /** At least one: a README with few features gets few cards rather than made-up ones. */
  features: z.array(z.object({ title: text(60), body: text(300) })).min(1).max(8),
  /** How it works, install, usage: each a titled block, optionally with code. */
  sections: z
    .array(
      z
        .object({
          title: text(80),
          /** May be empty when the block is its code, table or picture (a README section that is only a table). */
          body: z.string().trim().max(1200),
          code: z.string().max(2000).optional(),
          table: tableSchema.optional(),
          image: imageSchema.optional(),
        })
        .refine((section) => section.body || section.code || section.table || section.image, { message: "a section needs a body, code, a table or an image", path: ["body"] }),
    )
    .max(6),
  /** `body` is left out when the author has nothing true to add (the README author never pads it). */
  closing: z.object({ title: text(90), body: text(300).optional(), cta: linkSchema }),
});

export const aboutContentSchema = z.object({
  kind: z.literal("about"),
  meta: z.object({ title: text(70), description: text(200) }),
  title: text(90),
  intro: text(600),
  sections: z
    .array(
      z
        .object({ title: text(80), body: z.string().trim().max(1500), table: tableSchema.optional(), image: imageSchema.optional() })
        .refine((section) => section.body || section.table || section.image, { message: "a section needs a body, a table or an image", path: ["body"] }),
    )
    .min(1)
    .max(8),
  facts: z.array(z.object({ label: text(40), value: text(120) })).max(8),
});

export const faqContentSchema = z.object({
  kind: z.literal("faq"),
  meta: z.object({ title: text(70), description: text(200) }),
  title: text(90),
  intro: text(400),
  /** At least one: only the README's own questions are asked (the README author makes no FAQ page without one). */
  items: z.array(z.object({ question: text(200), answer: text(1500) })).min(1).max(20),
});

export const authContentSchema = z.object({
  kind: z.literal("auth"),
  meta: z.object({ title: text(70), description: text(200) }),
  title: text(90),
  subtitle: text(280),
  sign_in_label: text(30),
  sign_up_label: text(30),
  /** A line under the form, for example what members get. */
  note: text(300),
});

export const pageContentSchema = z.discriminatedUnion("kind", [
  landingContentSchema,
  aboutContentSchema,
  faqContentSchema,
  authContentSchema,
]);

export type LandingContent = z.infer<typeof landingContentSchema>;
export type AboutContent = z.infer<typeof aboutContentSchema>;
export type FaqContent = z.infer<typeof faqContentSchema>;
export type AuthContent = z.infer<typeof authContentSchema>;
export type PageContent = z.infer<typeof pageContentSchema>;
