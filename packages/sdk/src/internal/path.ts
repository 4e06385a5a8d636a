import { RepositeSDKError } from "../errors.js";

/**
 * Builds a request path with every interpolated value percent-encoded:
 * `path\`/app/sites/${id}\``. An empty value, `.` or `..` would turn the path into another
 * endpoint (`/app/sites/` is the list), so they are refused before anything is sent.
 */
export function path(strings: TemplateStringsArray, ...values: string[]): string {
  let result = strings[0] ?? "";
  values.forEach((value, i) => {
    if (typeof value !== "string" || value === "" || value === "." || value === "..") {
      throw new RepositeSDKError(`An id in ${strings.join("{…}")} must be a non-empty string, not ${JSON.stringify(value)}.`);
    }
    result += encodeURIComponent(value) + (strings[i + 1] ?? "");
  });
  return result;
}
