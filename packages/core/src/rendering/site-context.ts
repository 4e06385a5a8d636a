import type { ColorMode, PageKind, ProjectType } from "../projects/project.js";

/** Everything about a project a page needs besides its own content. */
export interface SiteContext {
  /** Product name shown on every page. */
  name: string;
  logoUrl: string;
  colorMode: ColorMode;
  type: ProjectType;
  /** The repository's web address (website and landing buttons point there). */
  repositoryUrl: string;
  /** Where the hosted app answers, relative to the site: `/app/`. */
  appPath: string;
  /** Pages the site has, for the menu, in order; the landing page is `template`. */
  pages: PageKind[];
  /** A forum link in the menu when the community is on. */
  community: boolean;
  /** Year for the footer; passed in so rendering stays deterministic. */
  year: number;
}

/** Page paths on a published site. */
export const PAGE_PATHS: Record<PageKind, string> = { template: "/", about: "/about", faq: "/faq", auth: "/auth" };
