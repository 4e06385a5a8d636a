/**
 * The product name as the README writes it.
 *
 * Rule: when the project's name matches the repository's name, ignoring case (repository
 * `quark`, name "quark"), the site writes the name the way the README does ("Quark"): the first
 * spelling in the README's title (its first heading), else the one its text uses most. Otherwise,
 * or when the README never spells the name, the project's own name is kept as given: a name the
 * owner chose on purpose is not second-guessed.
 */
export function readmeCasing(name: string, repoName: string, title: string | null, readme: string | null | undefined): string {
  if (!name || name.toLowerCase() !== repoName.toLowerCase()) return name;
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // Whole words only, and not inside an address: "quarks", "libquark", "github.com/acme/quark".
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_\\-/.@#=])${escaped}(?![\\p{L}\\p{N}_\\-/]|\\.\\w)`, "iu");
  const inTitle = pattern.exec(title ?? "");
  if (inTitle) return inTitle[0];
  // In the text, the spelling it uses most ("yt-dlp" in its sentences, not "YT-DLP" in a banner's alt text); the first on a tie.
  const counts = new Map<string, number>();
  for (const found of (readme ?? "").slice(0, 100_000).matchAll(new RegExp(pattern.source, "giu"))) counts.set(found[0], (counts.get(found[0]) ?? 0) + 1);
  let best = name;
  let most = 0;
  for (const [spelling, count] of counts) {
    if (count > most) {
      best = spelling;
      most = count;
    }
  }
  return best;
}
