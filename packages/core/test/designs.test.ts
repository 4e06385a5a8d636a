import { describe, expect, it } from "vitest";
import {
  DESIGNS,
  WCAG_AA_CONTRAST,
  contrastRatio,
  findDesign,
  pickDesign,
  relativeLuminance,
  type Design,
  type DesignScheme,
  type DesignType,
} from "../src/designs/index.js";

const TYPES: DesignType[] = ["saas", "website", "landing"];
const SCHEMES: DesignScheme[] = ["light", "dark"];
const HEX = /^#[0-9a-f]{6}$/i;

function flavour(design: Design, ...words: string[]): boolean {
  return words.some((word) => design.keywords.includes(word));
}

describe("contrast", () => {
  it("follows the WCAG relative-luminance formula", () => {
    expect(relativeLuminance("#000000")).toBe(0);
    expect(relativeLuminance("#ffffff")).toBeCloseTo(1, 10);
    expect(contrastRatio("#000", "#fff")).toBeCloseTo(21, 10);
    expect(contrastRatio("#fff", "#000")).toBeCloseTo(21, 10);
    expect(contrastRatio("#777777", "#ffffff")).toBeCloseTo(4.48, 2);
    expect(contrastRatio("#123456", "#123456")).toBe(1);
  });

  it("rejects colours that are not hex", () => {
    expect(() => relativeLuminance("red")).toThrow(/hex/);
    expect(() => relativeLuminance("#12345")).toThrow(/hex/);
  });
});

describe("design catalogue", () => {
  it("has 30 designs with unique kebab-case ids and human names", () => {
    expect(DESIGNS).toHaveLength(30);
    const ids = DESIGNS.map((d) => d.id);
    expect(new Set(ids).size).toBe(30);
    for (const design of DESIGNS) {
      expect(design.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(design.name.trim()).not.toBe("");
      expect(design.description.trim()).not.toBe("");
      expect(design.description).not.toContain("\n");
      expect(design.keywords.length).toBeGreaterThan(0);
      for (const keyword of design.keywords) expect(keyword).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    }
    expect(new Set(DESIGNS.map((d) => d.name)).size).toBe(30);
  });

  it("spreads designs over every type, with both schemes well represented in each", () => {
    for (const type of TYPES) {
      const ofType = DESIGNS.filter((d) => d.type === type);
      expect(ofType.length, type).toBeGreaterThanOrEqual(8);
      for (const scheme of SCHEMES) {
        expect(ofType.filter((d) => d.scheme === scheme).length, `${type} ${scheme}`).toBeGreaterThanOrEqual(3);
      }
    }
  });

  it("gives every design a distinct look", () => {
    const looks = DESIGNS.map((d) => `${d.look.layout}|${d.look.palette.accent.toLowerCase()}|${d.look.typography.headingFont}`);
    expect(new Set(looks).size).toBe(30);
    // Enough variety that renderers have something to tell apart.
    expect(new Set(DESIGNS.map((d) => d.look.layout)).size).toBeGreaterThanOrEqual(8);
    expect(new Set(DESIGNS.map((d) => d.look.typography.headingFont)).size).toBeGreaterThanOrEqual(10);
  });

  it.each(DESIGNS.map((d) => [d.id, d] as const))("%s: colours are hex and text is readable (WCAG AA)", (_id, design) => {
    const p = design.look.palette;
    for (const colour of Object.values(p)) expect(colour).toMatch(HEX);
    expect(contrastRatio(p.text, p.background)).toBeGreaterThanOrEqual(WCAG_AA_CONTRAST);
    expect(contrastRatio(p.accentText, p.accent)).toBeGreaterThanOrEqual(WCAG_AA_CONTRAST);
    expect(contrastRatio(p.text, p.surface)).toBeGreaterThanOrEqual(WCAG_AA_CONTRAST);
    expect(contrastRatio(p.muted, p.background)).toBeGreaterThanOrEqual(WCAG_AA_CONTRAST);
    expect(contrastRatio(p.muted, p.surface)).toBeGreaterThanOrEqual(WCAG_AA_CONTRAST);
    // The scheme must describe the palette, since renderers and the API both rely on it.
    const backgroundIsLight = relativeLuminance(p.background) > relativeLuminance(p.text);
    expect(backgroundIsLight ? "light" : "dark").toBe(design.scheme);
  });

  it.each(DESIGNS.map((d) => [d.id, d] as const))("%s: typography uses local fonts only and sane numbers", (_id, design) => {
    const t = design.look.typography;
    for (const stack of [t.headingFont, t.bodyFont]) {
      expect(stack).not.toMatch(/url\(|https?:|@import/i);
      expect(stack).toMatch(/(?:^|, )(serif|sans-serif|monospace|cursive|fantasy|system-ui)$/);
    }
    expect(t.scale).toBeGreaterThanOrEqual(1.125);
    expect(t.scale).toBeLessThanOrEqual(1.5);
    expect(t.headingWeight).toBeGreaterThanOrEqual(100);
    expect(t.headingWeight).toBeLessThanOrEqual(900);
    expect(design.look.radius).toBeGreaterThanOrEqual(0);
  });

  it("finds designs by id", () => {
    expect(findDesign("console")?.id).toBe("console");
    for (const design of DESIGNS) expect(findDesign(design.id)).toBe(design);
    expect(findDesign("no-such-design")).toBeUndefined();
    expect(findDesign("")).toBeUndefined();
  });
});

describe("pickDesign", () => {
  it("is deterministic", () => {
    const repo = { name: "acme-widgets", description: "Widgets for everyone", topics: ["widgets", "fun"] };
    expect(pickDesign(repo).id).toBe(pickDesign({ ...repo, topics: [...repo.topics] }).id);
    const noMatch = { name: "zzqx", description: "", topics: [] };
    expect(pickDesign(noMatch).id).toBe(pickDesign(noMatch).id);
  });

  it("picks a CLI-flavoured design for a command-line tool", () => {
    const design = pickDesign({ name: "fastgrep", description: "Search files quickly", topics: ["cli", "terminal"] });
    expect(flavour(design, "cli", "terminal")).toBe(true);
  });

  it("picks a database-flavoured design for a database", () => {
    const design = pickDesign({ name: "tinydb", description: "An embedded store", topics: ["database", "sql"] });
    expect(flavour(design, "database", "sql", "data")).toBe(true);
  });

  it("tells an AI repository from a game", () => {
    const ai = pickDesign({ name: "brainy", description: "Fine-tune large language models", topics: ["ai", "machine-learning"] });
    const game = pickDesign({ name: "brainy", description: "A roguelike dungeon crawler", topics: ["game", "gamedev"] });
    expect(flavour(ai, "ai", "machine-learning")).toBe(true);
    expect(flavour(game, "game", "gamedev")).toBe(true);
    expect(ai.id).not.toBe(game.id);
  });

  it("reads the description and name when there are no topics", () => {
    expect(flavour(pickDesign({ name: "docs-site", description: "Documentation and guides", topics: [] }), "documentation")).toBe(true);
    expect(flavour(pickDesign({ name: "wallet", description: "An Ethereum smart contract toolkit", topics: [] }), "ethereum")).toBe(true);
    // Plurals and prose pairs reach singular and hyphenated keywords.
    expect(flavour(pickDesign({ name: "x", description: "Deep learning for everyone", topics: [] }), "deep-learning")).toBe(true);
  });

  it("weighs topics above words in the description", () => {
    const design = pickDesign({ name: "thing", description: "A game about databases", topics: ["security"] });
    expect(flavour(design, "security")).toBe(true);
  });

  it("always returns a design, even for empty input", () => {
    const empty = pickDesign({ name: "", description: "", topics: [] });
    expect(DESIGNS).toContain(empty);
    expect(pickDesign({ name: "", description: "", topics: [] })).toBe(empty);
  });

  it("spreads repositories with no matching words over the catalogue instead of one default", () => {
    const picked = new Set<string>();
    for (let i = 0; i < 200; i++) picked.add(pickDesign({ name: `zz-${i}`, description: "", topics: [] }).id);
    expect(picked.size).toBeGreaterThan(15);
  });

  it("breaks ties by repository name, ignoring case", () => {
    const a = pickDesign({ name: "Hello-World", description: "", topics: ["ai"] });
    const b = pickDesign({ name: "hello-world", description: "", topics: ["ai"] });
    expect(a).toBe(b);
  });
});
