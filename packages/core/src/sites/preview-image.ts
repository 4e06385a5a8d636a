import { crc32, deflateSync } from "node:zlib";
import type { Design } from "../designs/design.js";
import { parseHexColor } from "../designs/contrast.js";
import type { ColorMode } from "../projects/project.js";
import { resolveTheme } from "../rendering/theme.js";
import { PREVIEW_IMAGE_HEIGHT, PREVIEW_IMAGE_WIDTH } from "./site-head.js";
import { escapeXml } from "./sitemap.js";

const WIDTH = PREVIEW_IMAGE_WIDTH;
const HEIGHT = PREVIEW_IMAGE_HEIGHT;
const MARGIN = 80;

export interface PreviewImageInput {
  name: string;
  description: string;
  /**
   * Shown at the bottom, for example the repository `github.com/acme/rocket-cli`. Not the site's
   * address: the image must stay right when the site moves to another one.
   */
  caption: string;
  design: Design;
  colorMode: ColorMode;
}

/**
 * The site's link-preview image (`/og.png`, 1200×630, the size Open Graph and Twitter's large
 * card expect): the name and description on the design's background in its colours and fonts.
 * Drawn from SVG by resvg with the machine's own fonts (no download); where resvg's prebuilt
 * binary is missing for the platform, a plain image in the design's colours is written instead.
 * Same input, same bytes.
 */
export async function renderPreviewImage(input: PreviewImageInput): Promise<Buffer> {
  const svg = previewSvg(input);
  try {
    const { renderAsync } = await import("@resvg/resvg-js");
    const image = await renderAsync(svg, {
      fitTo: { mode: "original" },
      font: {
        loadSystemFonts: true,
        // Used where a design's stack names no font of this machine (fontdb's defaults are Windows names).
        defaultFontFamily: "DejaVu Sans",
        sansSerifFamily: "DejaVu Sans",
        serifFamily: "DejaVu Serif",
        monospaceFamily: "DejaVu Sans Mono",
      },
      logLevel: "off",
    });
    return image.asPng();
  } catch (error) {
    // A preview image is never a reason for a publish to fail.
    warnOnce(error);
    return plainPreviewPng(input);
  }
}

/** The image as SVG; every text is escaped. */
export function previewSvg(input: PreviewImageInput): string {
  const { palette } = resolveTheme(input.design, input.colorMode);
  const type = input.design.look.typography;
  const titleSize = 84;
  const titleLines = wrap(type.uppercaseHeadings ? input.name.toUpperCase() : input.name, WIDTH - 2 * MARGIN, titleSize, 2);
  const bodySize = 36;
  const bodyLines = wrap(input.description, WIDTH - 2 * MARGIN, bodySize, 3);
  const titleTop = 170;
  const bodyTop = titleTop + titleLines.length * titleSize * 1.1 + 40;
  const radius = Math.min(input.design.look.radius, 24);
  const text = (lines: string[], top: number, size: number, lineHeight: number) =>
    lines.map((line, i) => `<tspan x="${MARGIN}" y="${Math.round(top + i * size * lineHeight)}">${escapeXml(line)}</tspan>`).join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">
<rect width="${WIDTH}" height="${HEIGHT}" fill="${color(palette.background)}"/>
<rect x="${MARGIN}" y="72" width="120" height="12" rx="${Math.min(radius, 6)}" fill="${color(palette.accent)}"/>
<text font-family="${escapeXml(type.headingFont)}" font-weight="${type.headingWeight}" font-size="${titleSize}" fill="${color(palette.text)}"${type.uppercaseHeadings ? ' letter-spacing="2"' : ""}>${text(titleLines, titleTop, titleSize, 1.1)}</text>
<text font-family="${escapeXml(type.bodyFont)}" font-size="${bodySize}" fill="${color(palette.muted)}">${text(bodyLines, bodyTop, bodySize, 1.4)}</text>
<rect x="0" y="${HEIGHT - 96}" width="${WIDTH}" height="96" fill="${color(palette.surface)}"/>
<rect x="0" y="${HEIGHT - 96}" width="${WIDTH}" height="2" fill="${color(palette.border)}"/>
<text x="${MARGIN}" y="${HEIGHT - 36}" font-family="${escapeXml(type.bodyFont)}" font-size="30" font-weight="600" fill="${color(palette.text)}">${escapeXml(input.caption)}</text>
</svg>`;
}

/**
 * Breaks `text` into at most `maxLines` lines that fit `width` at `size`, guessing glyph widths
 * (there is no font metrics library here); the last line ends in `…` when text is left over.
 */
function wrap(text: string, width: number, size: number, maxLines: number): string[] {
  const perLine = Math.max(8, Math.floor(width / (size * 0.56)));
  const words = text.replace(/\s+/g, " ").trim().split(" ").filter(Boolean);
  const lines: string[] = [];
  let line = "";
  for (let i = 0; i < words.length; i++) {
    let word = words[i]!;
    if (word.length > perLine) word = `${word.slice(0, perLine - 1)}…`;
    const next = line ? `${line} ${word}` : word;
    if (next.length <= perLine) {
      line = next;
      continue;
    }
    lines.push(line);
    line = word;
    if (lines.length === maxLines) {
      line = "";
      lines[maxLines - 1] = ellipsis(lines[maxLines - 1]!, perLine);
      break;
    }
  }
  if (line) lines.push(line);
  return lines.filter(Boolean);
}

function ellipsis(line: string, perLine: number): string {
  const cut = line.length + 1 > perLine ? line.slice(0, perLine - 1).replace(/\s+\S*$/, "") : line;
  return `${cut}…`;
}

/** A colour from the design, checked to be `#rrggbb` before it goes into markup. */
function color(hex: string): string {
  return /^#[0-9a-fA-F]{6}$/.test(hex) ? hex : "#888888";
}

let warned = false;
function warnOnce(error: unknown): void {
  if (warned) return;
  warned = true;
  console.warn("[reposite] [preview-image] resvg could not draw the preview image; it is plain colour instead.", error);
}

/**
 * A 1200×630 PNG without text: the design's background with an accent bar and a surface band,
 * encoded here (8-bit RGB, one zlib stream). The fallback when resvg is unavailable.
 */
export function plainPreviewPng(input: Pick<PreviewImageInput, "design" | "colorMode">): Buffer {
  const { palette } = resolveTheme(input.design, input.colorMode);
  const [background, accent, surface] = [palette.background, palette.accent, palette.surface].map((hex) => Buffer.from(parseHexColor(color(hex))));
  const stride = 1 + WIDTH * 3;
  const raw = Buffer.alloc(stride * HEIGHT);
  for (let y = 0; y < HEIGHT; y++) {
    const row = y * stride;
    raw[row] = 0; // filter: none
    for (let x = 0; x < WIDTH; x++) {
      let pixel = background!;
      if (y >= HEIGHT - 96) pixel = surface!;
      else if (y >= 72 && y < 84 && x >= MARGIN && x < MARGIN + 120) pixel = accent!;
      pixel.copy(raw, row + 1 + x * 3);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(WIDTH, 0);
  header.writeUInt32BE(HEIGHT, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}
