import { sentences } from "./whole-text.js";

/**
 * Lines of a README that are not about the product, whatever the project: notices and release
 * announcements, merch, sponsor and thanks lines, the README speaking of itself ("This README is
 * just a quick start document", "This document is also available in …"), a quote of a user
 * ("Microsoft uses pnpm in Rush repos", a testimonial in quotation marks). They may stay in their sections; they are never the
 * product's one-liner, its hero, the opening of About, or a closing band.
 */

const NOTICE =
  /\b(?:we(?:['’]re| are) (?:excited|happy|pleased|proud) to|(?:is|are) (?:now )?(?:deprecated|archived|unmaintained)|no longer maintained|announc\w+ (?:the )?(?:release|version|v\d)|(?:release|version) \d+(?:\.\d+)+ (?:is|has been) (?:out|released))|^(?:note|warning|caution|important|announcement|news|update)\b\s*[:!-]/i;
const SPONSOR =
  /\b(?:t-?shirts?|mugs|stickers|merch(?:andise)?|swag|sponsor(?:ed|s|ship)?|backed by|special thanks|thank you|donat(?:e|ions?)|support (?:us|the project|this project)|show your love|buy me a coffee|giv(?:e|ing) (?:us|it|this (?:project|repo)) a (?:star|⭐)|star (?:us|this (?:project|repo)))\b|⭐/i;
/** "Thanks to our sponsors", "Many thanks to …" open a thanks line; "fast (thanks to Starlette)" only says why. */
const THANKS = /^(?:many |big |huge )?thanks\b/i;
const SELF = /\b(?:this|the) (?:readme|document|file|page|repo(?:sitory)?) (?:is|contains|describes|explains|covers|only)\b|^this readme\b/i;
const QUOTE = /^(\S+(?: \S+){0,2}?) (?:uses|relies on|runs on|chose|switched to|migrated to|loves|trusts) (\S+)/;

/** A sentence that points at what follows it in the README ("the goals below"): a page may not show it. */
export const POINTER = /\b(?:below|the following|see above)\b/i;

const words = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();

/** True when a README text is a notice, a sponsor or thanks line, the README about itself, or a quote of a user of `name`. */
export function isPromotionOrNotice(plain: string, name = ""): boolean {
  const text = plain.replace(/(?<!!)\[([^[\]\n]*)\]\([^)\s]*\)/g, "$1").trim();
  // Words in quotation marks are someone's testimonial ("“[...] I'm using FastAPI a ton these days”").
  if (NOTICE.test(text) || SPONSOR.test(text) || THANKS.test(text) || SELF.test(text) || /^["“„«]/.test(text)) return true;
  const quote = QUOTE.exec(text);
  return Boolean(quote && name && /^\p{Lu}/u.test(quote[1]!) && !/^(?:you|we|it|this|everyone)$/i.test(quote[1]!) && words(quote[1]!) !== words(name) && words(quote[2]!) === words(name));
}

/** The sentences of a candidate before one that points at what follows it in the README ("We strive to fulfill the goals below."); null when the first does. */
export function beforePointer(text: string | null): string | null {
  if (!text || !POINTER.test(text)) return text;
  const kept: string[] = [];
  for (const sentence of sentences(text)) {
    if (POINTER.test(sentence)) break;
    kept.push(sentence);
  }
  return kept.join(" ") || null;
}
