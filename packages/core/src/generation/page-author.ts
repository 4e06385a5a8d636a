import type { z } from "zod";
import type { PageKind, ProjectType } from "../projects/project.js";
import {
  aboutContentSchema,
  authContentSchema,
  faqContentSchema,
  landingContentSchema,
  type PageContent,
} from "./page-content.js";

/** Everything an author needs to write one page of a site. */
export interface PageRequest {
  /** The page to write. */
  kind: PageKind;
  /** saas: buttons open the hosted app; website/landing: buttons open the repository. */
  type: ProjectType;
  /** Repository metadata, as the repo host described it (description "" when there is none). */
  product: {
    name: string;
    description: string;
    repositoryUrl: string;
    topics: string[];
    defaultBranch: string;
    /** The main language of the repository's source files (`repositoryLanguage`); null or absent when unknown. */
    language?: string | null;
  };
  /** The repository's README, or null when it has none. */
  readme: string | null;
  /** The part of the wishes meant for this page, or null (see `splitInstructions`). */
  instructions: string | null;
  /** Every page of the site, the landing page (`template`) included. */
  pages: PageKind[];
  /** True when the site has a community forum for registered people. */
  community: boolean;
}

/**
 * Writes the structured content of a page. Two implementations: the AI author (with a language
 * model configured) and the README author (the embedded default: deterministic, no network).
 */
export interface PageAuthor {
  /** Short name for logs and job records, e.g. `ai` or `readme`. */
  readonly name: string;
  /**
   * Writes one page. `onText` receives the text as it is written; joined, the deltas are the
   * whole text written (the job stream shows it). An abort of `signal` rejects with the signal's
   * reason, unchanged.
   *
   * @example
   * const content = await author.write(request, (delta) => job.append(delta), controller.signal);
   */
  write(request: PageRequest, onText: (delta: string) => void, signal: AbortSignal): Promise<PageContent>;
  /**
   * Why this author writes no page for the request (the README author and a README without
   * questions: no FAQ page), or null. The generation then skips the page and leaves it out of
   * the site's menu. Optional: an author without it writes every page.
   */
  declines?(request: PageRequest): string | null;
}

/** The schema each page kind's content must pass. */
export const PAGE_SCHEMAS = {
  template: landingContentSchema,
  about: aboutContentSchema,
  faq: faqContentSchema,
  auth: authContentSchema,
} as const satisfies Record<PageKind, z.ZodType<PageContent>>;

/** How people call each page, for prompts and messages. */
export const PAGE_NAMES: Record<PageKind, string> = {
  template: "landing page",
  about: "About page",
  faq: "FAQ page",
  auth: "sign-in page",
};
