import { WCAG_AA_CONTRAST, contrastRatio, parseHexColor, relativeLuminance } from "../designs/contrast.js";
import type { Design, DesignPalette, DesignScheme } from "../designs/design.js";
import type { ColorMode } from "../projects/project.js";

/** WCAG 2.x minimum for the outlines of controls and for large blocks of colour next to each other (1.4.11). */
export const UI_CONTRAST = 3;

/** The colours a page is painted with, after the project's `color_mode` is applied. */
export interface Theme {
  palette: DesignPalette;
  /** The appearance actually shown. */
  scheme: DesignScheme;
  /** True when `color_mode` asked for the other appearance and the palette was derived. */
  inverted: boolean;
  /** Text-safe variant of `accent` for links on `background` and `surface` (contrast >= 4.5). */
  link: string;
}

/** The scheme `color_mode` asks for, or the design's own when it asks for nothing. */
export function requestedScheme(design: Design, colorMode: ColorMode): DesignScheme {
  if (colorMode === "Dark mode") return "dark";
  if (colorMode === "Light mode") return "light";
  return design.scheme;
}

/** Resolves the palette for a design and a project's `color_mode`. */
export function resolveTheme(design: Design, colorMode: ColorMode): Theme {
  const scheme = requestedScheme(design, colorMode);
  const inverted = scheme !== design.scheme;
  const palette = inverted ? invertPalette(design.look.palette, scheme) : design.look.palette;
  return { palette, scheme, inverted, link: readableOn(palette.accent, [palette.background, palette.surface]) };
}

// --- colour arithmetic ---------------------------------------------------------------------------

type Hsl = { h: number; s: number; l: number };

function hexToHsl(hex: string): Hsl {
  const [r, g, b] = parseHexColor(hex).map((c) => c / 255) as [number, number, number];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  if (max === min) return { h: 0, s: 0, l };
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  const h = max === r ? (g - b) / d + (g < b ? 6 : 0) : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return { h: h * 60, s, l };
}

function hslToHex({ h, s, l }: Hsl): string {
  const clamp = (v: number) => Math.min(1, Math.max(0, v));
  s = clamp(s);
  l = clamp(l);
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const k = (n + h / 30) % 12;
    const value = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(value * 255)
      .toString(16)
      .padStart(2, "0");
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

function minContrast(color: string, backgrounds: readonly string[]): number {
  return Math.min(...backgrounds.map((bg) => contrastRatio(color, bg)));
}

function isDark(hex: string): boolean {
  // The luminance where black and white text have equal contrast.
  return relativeLuminance(hex) < 0.179;
}

/**
 * `color` with its lightness moved away from the backgrounds (keeping hue and saturation) until it
 * reaches `min` contrast against all of them; unchanged when it already does. Ends at black or white.
 */
export function readableOn(color: string, backgrounds: readonly string[], min = WCAG_AA_CONTRAST): string {
  if (minContrast(color, backgrounds) >= min) return color.toLowerCase();
  const darkBackground = isDark(backgrounds[0]!);
  const hsl = hexToHsl(color);
  for (let step = 1; step <= 100; step++) {
    const l = darkBackground ? hsl.l + ((1 - hsl.l) * step) / 100 : hsl.l - (hsl.l * step) / 100;
    const candidate = hslToHex({ ...hsl, l });
    if (minContrast(candidate, backgrounds) >= min) return candidate;
  }
  return darkBackground ? "#ffffff" : "#000000";
}

/** The first candidate readable on `background`, else black or white, whichever reads better. */
function textOn(background: string, candidates: readonly string[]): string {
  for (const candidate of candidates) if (contrastRatio(candidate, background) >= WCAG_AA_CONTRAST) return candidate;
  return contrastRatio("#000000", background) >= contrastRatio("#ffffff", background) ? "#000000" : "#ffffff";
}

/**
 * Derives the other appearance of a palette. Hues survive; lightness is mirrored, backgrounds are
 * pulled into a calm range, and every pair the palette promises (text and muted on background and
 * surface, accentText on accent) is pushed until it meets WCAG AA again. The accent keeps its hue and
 * is only moved as far as it must to stand out from the new background (3:1).
 */
export function invertPalette(palette: DesignPalette, to: DesignScheme): DesignPalette {
  const bg = hexToHsl(palette.background);
  const surface = hexToHsl(palette.surface);
  const border = hexToHsl(palette.border);
  const lift = Math.min(0.08, Math.max(0.035, Math.abs(surface.l - bg.l)));
  const calm = (hsl: Hsl, max: number) => Math.min(hsl.s, max);

  let background: string;
  let surfaceHex: string;
  let borderHex: string;
  if (to === "dark") {
    const l = 0.06 + (1 - bg.l) * 0.5;
    background = hslToHex({ h: bg.h, s: calm(bg, 0.35), l });
    surfaceHex = hslToHex({ h: surface.s > 0.05 ? surface.h : bg.h, s: calm(surface, 0.3), l: l + lift });
    borderHex = hslToHex({ h: border.h, s: calm(border, 0.25), l: l + lift + 0.1 });
  } else {
    const l = Math.max(0.94, 0.99 - bg.l * 0.2);
    background = hslToHex({ h: bg.h, s: calm(bg, 0.5), l });
    surfaceHex = hslToHex({ h: surface.s > 0.05 ? surface.h : bg.h, s: calm(surface, 0.45), l: l - lift });
    borderHex = hslToHex({ h: border.h, s: calm(border, 0.35), l: l - lift - 0.12 });
  }
  const mirrored = (hex: string) => {
    const hsl = hexToHsl(hex);
    return hslToHex({ ...hsl, l: 1 - hsl.l });
  };
  const surfaces = [background, surfaceHex];
  const text = readableOn(mirrored(palette.text), surfaces, 7);
  const muted = readableOn(mirrored(palette.muted), surfaces);
  const accent = readableOn(palette.accent, surfaces, UI_CONTRAST);
  const accentText = textOn(accent, [palette.accentText, mirrored(palette.accentText), background, text]);
  return { background, surface: surfaceHex, text, muted, accent, accentText, border: borderHex };
}

// --- CSS -----------------------------------------------------------------------------------------

const MONO_STACK = 'ui-monospace, "Cascadia Code", "Source Code Pro", Menlo, Consolas, "DejaVu Sans Mono", monospace';
const DENSITY_SPACE = { compact: 0.8, comfortable: 1, airy: 1.3 } as const;

/** A font stack from the catalogue, stripped of anything that could end the style element. */
function fontStack(value: string): string {
  return value.replace(/[<>{};\\]/g, "");
}

function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * The design's look as CSS custom properties on `:root`. Layouts use only these variables, so one
 * layout looks different in every design that uses it.
 */
export function themeCss(design: Design, theme: Theme): string {
  const { palette } = theme;
  const { typography, radius, density } = design.look;
  const s = typography.scale;
  const displayMax = Math.min(5.25, Math.max(2.75, s ** 6));
  const monoBody = /monospace\s*$/.test(typography.bodyFont);
  const vars: Record<string, string | number> = {
    "--bg": palette.background,
    "--surface": palette.surface,
    "--text": palette.text,
    "--muted": palette.muted,
    "--accent": palette.accent,
    "--accent-text": palette.accentText,
    "--border": palette.border,
    "--link": theme.link,
    "--focus": theme.link,
    "--font-head": fontStack(typography.headingFont),
    "--font-body": fontStack(typography.bodyFont),
    "--font-mono": monoBody ? fontStack(typography.bodyFont) : MONO_STACK,
    "--head-weight": Math.round(Math.min(900, Math.max(100, typography.headingWeight))),
    "--head-case": typography.uppercaseHeadings ? "uppercase" : "none",
    "--head-track": typography.uppercaseHeadings ? "0.04em" : typography.headingWeight >= 700 ? "-0.015em" : "normal",
    "--scale": s,
    // Width of a heading character in em, for fitting long words (long-words.ts): capitals are wider.
    "--char-head": typography.uppercaseHeadings ? 0.8 : 0.68,
    "--h3": `${round(s * 1.05)}rem`,
    "--h2": `${round(Math.min(2.6, s ** 2 * 1.05))}rem`,
    "--h1": `clamp(2rem, calc(1.2rem + 3vw), ${round(Math.min(3.75, Math.max(2.4, s ** 4)))}rem)`,
    "--display": `clamp(2.1rem, calc(1rem + 4.6vw), ${round(displayMax)}rem)`,
    "--radius": `${Math.max(0, Math.round(radius))}px`,
    "--radius-box": `${Math.min(28, Math.max(0, Math.round(radius)))}px`,
    "--space": `${DENSITY_SPACE[density]}rem`,
  };
  const body = Object.entries(vars)
    .map(([name, value]) => `${name}:${value}`)
    .join(";");
  return `:root{color-scheme:${theme.scheme};${body}}`;
}
