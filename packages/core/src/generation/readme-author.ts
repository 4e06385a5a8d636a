import type { PageKind } from "../projects/project.js";
import { PAGE_SCHEMAS, type PageAuthor, type PageRequest } from "./page-author.js";
import type { PageContent } from "./page-content.js";
import { createContext, type Context } from "./readme/context.js";
import { landingPage } from "./readme/landing.js";
import { aboutPage, authPage, faqPage, faqRefusal } from "./readme/other-pages.js";

export { siteSentences } from "./readme/other-pages.js";

/**
 * The embedded page author, used when no language model is configured: it builds every page
 * from the README and the repository metadata, deterministically and without network.
 *
 * It keeps the README's own words: every sentence on a page is the README's (or the repository
 * description's), whole or shortened to whole sentences and clauses, never cut mid-phrase; its
 * tables, numbers, screenshots and Download links are kept; a slot the README has nothing for is
 * left out rather than filled. The only words of its own are button labels and the page frame
 * (`siteSentences`). With no question in the README it writes no FAQ page (`declines`).
 *
 * Wishes (`request.instructions`) are read but not followed: a fixed builder cannot change tone,
 * emphasis or wording on request, and copying the wishes into the page would publish
 * instructions as content. The page stays correct; the wishes take effect with a language model.
 */
export function createReadmeAuthor(): PageAuthor {
  return {
    name: "readme",
    declines(request) {
      return request.kind === "faq" ? faqRefusal(createContext(request)) : null;
    },
    async write(request, onText, signal) {
      signal.throwIfAborted();
      const content = PAGE_SCHEMAS[request.kind].parse(buildReadmePage(request)) as PageContent;
      const json = JSON.stringify(content, null, 2);
      for (const chunk of chunks(json, 4)) {
        signal.throwIfAborted();
        onText(chunk);
        await Promise.resolve();
      }
      return content;
    },
  };
}

/** Builds the content of one page; pure and deterministic. A FAQ with no README question throws `422 no_questions`. */
export function buildReadmePage(request: PageRequest): PageContent {
  const builders: Record<PageKind, (context: Context) => PageContent> = {
    template: landingPage,
    about: aboutPage,
    faq: faqPage,
    auth: authPage,
  };
  return builders[request.kind](createContext(request));
}

/** Splits text into about `count` pieces at line ends. */
function chunks(text: string, count: number): string[] {
  const lines = text.split(/(?<=\n)/);
  const size = Math.ceil(text.length / count);
  const out: string[] = [];
  let current = "";
  for (const line of lines) {
    current += line;
    if (current.length >= size) {
      out.push(current);
      current = "";
    }
  }
  if (current) out.push(current);
  return out;
}
