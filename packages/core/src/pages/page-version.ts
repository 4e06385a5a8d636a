import type { PageVersion, PageVersionDetail as ContractPageVersionDetail } from "@reposite/contract";
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
  created_at: string;
}

/** A version as lists show it: everything but the HTML. */
export type PageVersionView = PageVersion;

/** A version read singly, with its HTML. */
export type PageVersionDetail = ContractPageVersionDetail;
