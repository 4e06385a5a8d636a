/** Where a mention of a setting was found. */
export type MentionSource = "app.json" | "env-file" | "env-schema" | "compose" | "schema" | "code" | "framework" | "readme";

/** What one source says about one setting. */
export interface Mention {
  name: string;
  description: string;
  /** The example's, schema's or code's default, as written; null when none. */
  value: string | null;
  /**
   * true: the app fails without it (a schema without default, code that exits when it is missing,
   * `required: true`); false: it has a default or is marked optional; undefined: no sign either way,
   * required unless the value is a usable default.
   */
  required?: boolean;
  /** The source says the service may generate it (`generator: "secret"`). */
  generate?: boolean;
  /** The source says the value is sensitive (`@sensitive`). */
  sensitive?: boolean;
  source: MentionSource;
}
