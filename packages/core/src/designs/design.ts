/** The project type a design suits; the same three values as a generation plan's `mode`. */
export type DesignType = "saas" | "website" | "landing";

/** Whether the design is light or dark by default. */
export type DesignScheme = "light" | "dark";

/**
 * Colours as `#rrggbb`. Pairs that carry text meet WCAG AA (contrast >= 4.5):
 * `text` and `muted` on `background` and `surface`, and `accentText` on `accent`,
 * so a renderer can put text on any of them without checking. `accent` as text on `background`
 * (links) is not promised: some designs use it as a bright block colour only, so renderers that
 * colour links with it should check `contrastRatio` and fall back to `text`.
 */
export interface DesignPalette {
  /** Page background. */
  background: string;
  /** Cards, panels, code blocks and other raised areas. */
  surface: string;
  /** Body and heading text. */
  text: string;
  /** Secondary text: captions, metadata, footers. */
  muted: string;
  /** Buttons, links and highlights. */
  accent: string;
  /** Text on an `accent` background, such as a button label. */
  accentText: string;
  /** Rules, outlines and dividers. */
  border: string;
}

/**
 * Published sites load no web fonts (no CDN, no third-party requests, nothing to license),
 * so font stacks name fonts commonly installed on the reader's system and end with a generic family.
 */
export interface DesignTypography {
  /** CSS `font-family` value for headings. */
  headingFont: string;
  /** CSS `font-family` value for body text. */
  bodyFont: string;
  /** CSS `font-weight` for headings, 100..900. */
  headingWeight: number;
  /** Ratio between consecutive heading sizes, 1.125..1.5; larger means more dramatic headings. */
  scale: number;
  /** Headings set in capitals (with some letter spacing). */
  uppercaseHeadings: boolean;
}

/** How the hero and the page sections are arranged. */
export type DesignLayout =
  /** Hero text centred over a wide call to action; sections stacked and centred. */
  | "centered"
  /** Hero in two columns: text on one side, a product shot or code sample on the other. */
  | "split"
  /** Narrow reading column, large serif-like headings, pull quotes; reads like an article. */
  | "editorial"
  /** Features in a grid of tiles of mixed sizes. */
  | "bento"
  /** Hero is a terminal window with the install command and sample output; monospace throughout. */
  | "terminal"
  /** Multi-column grid with a lead story, side columns and rules between them. */
  | "magazine"
  /** One oversized headline filling the first screen; blocks of flat colour below. */
  | "poster"
  /** Fixed navigation column on the left, content on the right; like documentation. */
  | "sidebar"
  /** Short hero, then features as a row of equal cards with icons. */
  | "cards"
  /** Text only, generous whitespace, no decoration; a single column and a single link colour. */
  | "minimal";

export interface DesignLook {
  palette: DesignPalette;
  typography: DesignTypography;
  layout: DesignLayout;
  /** Corner radius of buttons and cards, in CSS pixels; 0 is square. */
  radius: number;
  /** Spacing between and within sections. */
  density: "compact" | "comfortable" | "airy";
}

/** One entry of the design catalogue; `id`, `name`, `description`, `type` and `scheme` are public in the API. */
export interface Design {
  /** Kebab-case, stable: projects store it. */
  id: string;
  name: string;
  /** One line, shown in the design list. */
  description: string;
  type: DesignType;
  scheme: DesignScheme;
  /** Words that suggest this design for a repository */
  keywords: string[];
  look: DesignLook;
}
