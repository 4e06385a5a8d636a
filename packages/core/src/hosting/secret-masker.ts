/** What a masked value reads as in a log line. */
export const MASK = "***";

/**
 * Values shorter than this are not masked: `1`, `on` or `dev` cannot be told apart from ordinary
 * output, and masking them would garble every line (CI systems draw the same line).
 */
export const MIN_MASKED_LENGTH = 4;

/**
 * Hides the app's env values in text that leaves the pipeline (build and start log lines, run
 * reasons, job errors), the way CI systems mask secrets: each value, each line of a multi-line
 * value, and its URL-encoded and JSON-escaped forms, longest first so a value that contains
 * another is hidden whole.
 */
export function createSecretMasker(values: Iterable<string>): (text: string) => string {
  const forms = new Set<string>();
  for (const value of values) {
    for (const part of [value, ...value.split(/\r?\n/)]) {
      for (const form of [part, encodeURIComponent(part), JSON.stringify(part).slice(1, -1)]) {
        if (form.length >= MIN_MASKED_LENGTH) forms.add(form);
      }
    }
  }
  if (forms.size === 0) return (text) => text;
  const sorted = [...forms].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(sorted.map(escapeRegExp).join("|"), "g");
  return (text) => text.replace(pattern, MASK);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
