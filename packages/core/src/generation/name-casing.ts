/**
 * The product name as the README writes it.
 *
 * Rule: when the project's name matches the repository's name, ignoring case (repository
 * `quark`, name "quark"), the site writes the name the way the README does ("Quark"): the first
 * spelling in the README's title (its first heading), else the first one in its text. Otherwise,
 * or when the README never spells the name, the project's own name is kept as given: a name the
 * owner chose on purpose is not second-guessed.
 */
export function readmeCasing(name: string, repoName: string, title: string | null, readme: string | null | undefined): string {
  if (!name || name.toLowerCase() !== repoName.toLowerCase()) return name;
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // Whole words only, and not inside an address: "quarks", "libquark", "github.com/acme/quark".
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_\\-/.@#=])${escaped}(?![\\p{L}\\p{N}_\\-/]|\\.\\w)`, "iu");
  for (const text of [title ?? "", readme ?? ""]) {
    const found = pattern.exec(text.slice(0, 100_000));
    if (found) return found[0];
  }
  return name;
}
