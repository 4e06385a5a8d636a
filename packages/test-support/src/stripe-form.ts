/** A value of a Stripe request body: a string, or objects and lists of them. */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormObject = { [key: string]: FormValue };

/**
 * Reads a form-encoded body (or query string) the way Stripe does: `line_items[0][price]=p&metadata[k]=v`
 * becomes `{line_items: [{price: "p"}], metadata: {k: "v"}}`. A numeric segment makes a list, as the
 * Stripe client writes lists (`key[0]`, `key[1]`, …); brackets may come encoded or not.
 */
export function parseStripeForm(text: string): FormObject {
  const root: FormObject = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    if (!match) continue;
    const path = [match[1] as string, ...[...(match[2] ?? "").matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] as string)];
    set(root, path, value);
  }
  return root;
}

function set(container: FormObject | FormValue[], path: string[], value: string): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  const slot = Array.isArray(container) ? Number(head) : head;
  if (Array.isArray(container) && !Number.isInteger(slot)) return;
  const holder = container as Record<string | number, FormValue>;
  if (rest.length === 0) {
    holder[slot] = value;
    return;
  }
  let next = holder[slot];
  if (next === undefined || typeof next === "string") {
    next = /^\d+$/.test(rest[0] as string) ? [] : {};
    holder[slot] = next;
  }
  set(next, rest, value);
}

/** A field as a string, or undefined when absent or not a plain value. */
export function formString(form: FormObject | undefined, key: string): string | undefined {
  const value = form?.[key];
  return typeof value === "string" ? value : undefined;
}

/** A field as an object of strings (metadata), or undefined. */
export function formRecord(form: FormObject | undefined, key: string): Record<string, string> | undefined {
  const value = form?.[key];
  if (value === undefined || typeof value === "string" || Array.isArray(value)) return undefined;
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/** A field as a list of objects (line items), or undefined. */
export function formList(form: FormObject | undefined, key: string): FormObject[] | undefined {
  const value = form?.[key];
  if (!Array.isArray(value)) return undefined;
  return value.filter((item): item is FormObject => item !== undefined && typeof item === "object" && !Array.isArray(item));
}

/** A nested object field (subscription_data), or undefined. */
export function formObject(form: FormObject | undefined, key: string): FormObject | undefined {
  const value = form?.[key];
  return value !== undefined && typeof value === "object" && !Array.isArray(value) ? value : undefined;
}
