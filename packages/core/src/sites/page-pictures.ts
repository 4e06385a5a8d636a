import type { PageContent } from "../generation/page-content.js";

type Picture = { src: string; alt: string };

/** One place a page's content holds a picture: read it, change its address, or leave it out. */
export interface PictureSlot {
  picture: Picture;
  setSrc(src: string): void;
  drop(): void;
}

/**
 * The pictures of a page's content in reading order (the landing page's hero first, then each
 * section's), on a copy of `content` that `result()` answers with the slots' changes. A section
 * whose picture is left out goes too when nothing else is in it (no text, code or table), except
 * an About page's last section: that page needs one.
 */
export function pictureSlots<T extends PageContent>(content: T): { slots: PictureSlot[]; result(): T } {
  const copy = structuredClone(content);
  const slots: PictureSlot[] = [];
  const emptied = new Set<object>();
  if (copy.kind === "template" && copy.hero.image) {
    const hero = copy.hero;
    slots.push({ picture: hero.image!, setSrc: (src) => (hero.image = { ...hero.image!, src }), drop: () => delete hero.image });
  }
  if (copy.kind === "template" || copy.kind === "about") {
    for (const section of copy.sections as Array<{ body: string; code?: string; table?: unknown; image?: Picture }>) {
      if (!section.image) continue;
      slots.push({
        picture: section.image,
        setSrc: (src) => (section.image = { ...section.image!, src }),
        drop: () => {
          delete section.image;
          if (!section.body && !section.code && !section.table) emptied.add(section);
        },
      });
    }
  }
  return {
    slots,
    result() {
      if (emptied.size > 0 && (copy.kind === "template" || copy.kind === "about")) {
        const kept = (copy.sections as object[]).filter((section) => !emptied.has(section));
        (copy as { sections: object[] }).sections = copy.kind === "about" && kept.length === 0 ? copy.sections.slice(0, 1) : kept;
      }
      return copy;
    },
  };
}
