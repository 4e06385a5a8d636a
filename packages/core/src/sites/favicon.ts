import type { Design } from "../designs/design.js";
import type { ColorMode } from "../projects/project.js";
import { decodeLogo } from "../rendering/favicon-link.js";
import { resolveTheme } from "../rendering/theme.js";
import { escapeXml } from "./sitemap.js";

export const FAVICON_SVG_PATH = "/favicon.svg";
/** Browsers ask for `/favicon.ico` by default, so the site always answers there too. */
export const FAVICON_ICO_PATH = "/favicon.ico";

export interface FaviconFile {
  path: string;
  contentType: string;
  body: Buffer;
}

export interface FaviconInput {
  name: string;
  /** The project's copied logo (a `data:` image URL) or "" for none. */
  logo: string;
  design: Design;
  colorMode: ColorMode;
}

/** The product name's first letter, upper case ("•" when the name has none). */
export function faviconLetter(name: string): string {
  return (Array.from(name.trim())[0] ?? "•").toUpperCase();
}

/** A 64×64 rounded square in the design's accent with the first letter in its accent text colour. */
export function monogramSvg(input: Omit<FaviconInput, "logo">): string {
  const { palette } = resolveTheme(input.design, input.colorMode);
  const type = input.design.look.typography;
  const radius = Math.min(input.design.look.radius, 16);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">
<rect width="64" height="64" rx="${radius}" fill="${color(palette.accent)}"/>
<text x="32" y="45" text-anchor="middle" font-family="${escapeXml(type.headingFont)}" font-weight="700" font-size="40" fill="${color(palette.accentText)}">${escapeXml(faviconLetter(input.name))}</text>
</svg>
`;
}

/**
 * The site's icon files: the logo at `/favicon.ico` when the project has one, otherwise the
 * monogram as `/favicon.svg` and, drawn by resvg, as a PNG at `/favicon.ico` (the SVG itself
 * where resvg is unavailable). Pages link `/favicon.ico` (rendering/favicon-link.ts).
 */
export async function renderFavicons(input: FaviconInput): Promise<FaviconFile[]> {
  const logo = decodeLogo(input.logo);
  if (logo) return [{ path: FAVICON_ICO_PATH, ...logo }];
  const svg = monogramSvg(input);
  const files: FaviconFile[] = [{ path: FAVICON_SVG_PATH, contentType: "image/svg+xml", body: Buffer.from(svg, "utf8") }];
  try {
    const { renderAsync } = await import("@resvg/resvg-js");
    const image = await renderAsync(svg, {
      fitTo: { mode: "width", value: 32 },
      font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans", sansSerifFamily: "DejaVu Sans", serifFamily: "DejaVu Serif", monospaceFamily: "DejaVu Sans Mono" },
      logLevel: "off",
    });
    files.push({ path: FAVICON_ICO_PATH, contentType: "image/png", body: image.asPng() });
  } catch {
    // An icon is never a reason for a publish to fail: browsers read the SVG at this path too.
    files.push({ path: FAVICON_ICO_PATH, contentType: "image/svg+xml", body: Buffer.from(svg, "utf8") });
  }
  return files;
}

function color(hex: string): string {
  return /^#[0-9a-fA-F]{6}$/.test(hex) ? hex : "#888888";
}
