import { createReadmeAuthor, type PageContent, type PageKind, type ProjectType } from "@reposite/core";
import type { ReadmeFixture } from "./fixture.js";

/** Every page kind a site can have, the landing page (`template`) first. */
const KINDS: PageKind[] = ["template", "about", "faq", "auth"];

/** The pages the README author writes for a corpus README, and the site's menu. */
export interface ReadmeSite {
  /** Page kinds the author wrote, in menu order (the FAQ is left out when it declines). */
  kinds: PageKind[];
  pages: Partial<Record<PageKind, PageContent>>;
}

/**
 * Turns a corpus README into its site's pages the way a generation does: the README author is asked
 * for every page kind, a page it declines (a FAQ without a README question) is left out of the site.
 */
export async function readmeSitePages(fixture: Pick<ReadmeFixture, "product" | "readme">, type: ProjectType): Promise<ReadmeSite> {
  const author = createReadmeAuthor();
  const request = (kind: PageKind) => ({ kind, type, product: fixture.product, readme: fixture.readme, instructions: null, pages: KINDS, community: false });
  const kinds = KINDS.filter((kind) => author.declines?.(request(kind)) == null);
  const pages: Partial<Record<PageKind, PageContent>> = {};
  for (const kind of kinds) pages[kind] = await author.write({ ...request(kind), pages: kinds }, () => {}, new AbortController().signal);
  return { kinds, pages };
}
