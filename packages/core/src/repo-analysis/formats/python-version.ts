/**
 * `.python-version` (pyenv, uv) and `runtime.txt` (Heroku: `python-3.12.4`): the first line that is
 * not a comment or blank. pyenv allows several versions, one a line; the first is the one used.
 */
export function readPythonVersion(text: string): string | null {
  for (const line of text.replace(/^\uFEFF/, "").split(/\r?\n/)) {
    const version = line.replace(/#.*$/, "").trim();
    if (version !== "") return version.replace(/^python-/, "");
  }
  return null;
}
