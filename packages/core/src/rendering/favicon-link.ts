/**
 * The logo's bytes and type, when it is a base64 `data:` raster image (how projects keep a copied
 * logo). Not SVG: opened at its own address on the site's origin, an SVG could run script.
 */
export function decodeLogo(logo: string): { contentType: string; body: Buffer } | null {
  const match = /^data:(image\/(?:png|jpeg|jpg|gif|webp|avif));base64,([A-Za-z0-9+/=]+)$/i.exec(logo.trim());
  if (!match) return null;
  const body = Buffer.from(match[2]!, "base64");
  return body.length > 0 ? { contentType: match[1]!.toLowerCase(), body } : null;
}

/**
 * The `<link rel="icon">` publishing adds to every page (sites/site-head.ts) and the site's own pages
 * carry. Always `/favicon.ico`, where publishing serves the logo or, without one, the monogram
 * (sites/favicon.ts): no second inline copy of the logo in every page.
 */
export const FAVICON_LINK = '<link rel="icon" href="/favicon.ico">';
