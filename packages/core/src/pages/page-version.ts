import type { PageVersion, PageVersionDetail as ContractPageVersionDetail } from "@reposite/contract";
import type { PageContent } from "../generation/page-content.js";
import type { PageKind } from "../projects/project.js";

// The page kinds, the 5 MB limit and the views are the HTTP contract's.
export { PAGE_KINDS, MAX_PAGE_HTML_BYTES } from "@reposite/contract";

/** One version of one page of a project. */
export interface PageVersionRecord {
  id: string;
  site_id: string;
  owner_id: string;
  kind: PageKind;
  /** What changed, in a few words. */
  name: string;
  html: string;
  /** `generated` by an author, or `custom` HTML sent by the owner. */
  source: "generated" | "custom";
  /** The design the page was rendered in; null for custom HTML. */
  design: string | null;
  /**
   * A generated page's structured content. Publishing renders it again in the site's design and
   * color_mode of the moment, so every page of a site always has one look; `html` is the preview
   * made when it was written. Absent for custom HTML (published as written) and older versions.
   */
  content?: PageContent;
  created_at: string;
}

/** A version as lists show it: everything but the HTML. */
export type PageVersionView = PageVersion;

/** A version read singly, with its HTML. */
export type PageVersionDetail = ContractPageVersionDetail;
