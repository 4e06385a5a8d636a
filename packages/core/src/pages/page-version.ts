import type { PageKind } from "../projects/project.js";

export const PAGE_KINDS = ["template", "about", "faq", "auth"] as const satisfies readonly PageKind[];

/** A custom page's HTML may be at most 5 MB. */
export const MAX_PAGE_HTML_BYTES = 5 * 1024 * 1024;

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
export interface PageVersionView {
  id: string;
  kind: PageKind;
  name: string;
  source: "generated" | "custom";
  design: string | null;
  created_at: string;
  /** This version is the page's current one. */
  current: boolean;
}

/** A version read singly, with its HTML. */
export interface PageVersionDetail extends PageVersionView {
  html: string;
}
