import type { Design } from "../../designs/design.js";
import type { AboutContent, AuthContent, FaqContent, LandingContent } from "../../generation/page-content.js";
import type { PageKind } from "../../projects/project.js";
import type { SafeHtml } from "../escape.js";
import type { SiteContext } from "../site-context.js";
import type { Theme } from "../theme.js";

/** Everything a layout needs besides the page's own content. */
export interface RenderContext {
  design: Design;
  site: SiteContext;
  theme: Theme;
  /** The page being rendered; `not-found` for the 404 page. */
  page: PageKind | "not-found";
  /**
   * Which variation of its layout the design gets: 0, 1, 2… in catalogue order among the designs
   * sharing the layout, so two designs of one layout never get the same variation.
   */
  variant: number;
  /** A stable number derived from the design id, for small decorative choices. */
  seed: number;
  /** Where primary buttons go: the app for `saas`, the repository otherwise. */
  primary: { href: string; external: boolean };
}

/**
 * One layout family. Each method returns the inside of `<body>`: the skip link, header, `<main>`
 * and footer, so a layout owns its navigation and footer as well as the page structure.
 */
export interface Layout {
  /** Layout-specific CSS, appended after the base sheet. */
  css(ctx: RenderContext): string;
  landing(content: LandingContent, ctx: RenderContext): SafeHtml;
  about(content: AboutContent, ctx: RenderContext): SafeHtml;
  faq(content: FaqContent, ctx: RenderContext): SafeHtml;
  auth(content: AuthContent, ctx: RenderContext): SafeHtml;
  notFound(ctx: RenderContext): SafeHtml;
}
