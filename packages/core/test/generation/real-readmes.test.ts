import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { REAL_README_CHECKS as CHECKS, REAL_READMES, readmeSitePages, serverPathProblems, type CheckedSite, type RealReadme } from "@reposite/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { DESIGNS } from "../../src/designs/index.js";
import type { AboutContent, PageContent } from "../../src/generation/page-content.js";
import type { PageKind, ProjectType } from "../../src/projects/project.js";
import { renderPage } from "../../src/rendering/index.js";

/**
 * Issue 23, proof: the README author's sites from real READMEs of well-known projects
 * (`test-support/src/readme-corpus/real/`), in both site types that write every page kind (website
 * and saas), held to what their maintainers would publish (`test-support/src/readme-corpus/real/site-checks.ts`): a link out and
 * the README's own destination, a whole hero, no raw markup, no lead-in left hanging, nothing from
 * Sponsors/Contributing/License/…, no section twice, and no server path for a local project.
 *
 * One test per check and site, so the pass count per check is the report; the counts are also
 * written to `test-artifacts/real-readmes/summary.txt` (git-ignored), with every problem.
 */

const ARTIFACTS = fileURLToPath(new URL("../../../../test-artifacts/real-readmes/", import.meta.url));
const TYPES: ProjectType[] = ["website", "saas"];
/** Where a local project's folder would be on the server: the path no page may show. */
const SERVER_FOLDER = "/srv/reposite-checkouts";

/** Renders each page in the first design of the site's type, as a generation does with an automatic design. */
function render(entry: Pick<RealReadme, "product">, type: ProjectType, pages: Partial<Record<PageKind, PageContent>>, kinds: PageKind[]): Partial<Record<PageKind, string>> {
  const design = DESIGNS.find((candidate) => candidate.type === type)!;
  const html: Partial<Record<PageKind, string>> = {};
  for (const kind of kinds) {
    html[kind] = renderPage(design, pages[kind]!, {
      name: entry.product.name,
      logoUrl: "",
      colorMode: "",
      type,
      repositoryUrl: entry.product.repositoryUrl,
      appPath: "/app/",
      pages: kinds,
      community: false,
      year: 2025,
    });
  }
  return html;
}

const SITES = await Promise.all(
  REAL_READMES.flatMap((entry) =>
    TYPES.map(async (type) => {
      const site = await readmeSitePages(entry, type);
      const checked: CheckedSite = {
        readme: entry.readme,
        repositoryUrl: entry.product.repositoryUrl,
        destinations: entry.destinations,
        product: entry.product,
        pages: site.pages,
        html: render(entry, type, site.pages, site.kinds),
      };
      return { name: `${entry.id}/${type}`, checked };
    }),
  ),
);

/** The same READMEs as local projects: a folder on the server, named after the README's repository. */
const LOCAL_SITES = await Promise.all(
  REAL_READMES.map(async (entry) => {
    const product = { ...entry.product, repositoryUrl: `file://${SERVER_FOLDER}/${entry.id}` };
    const site = await readmeSitePages({ product, readme: entry.readme }, "website");
    return { name: `${entry.id}/local`, id: entry.id, site, html: render({ product }, "website", site.pages, site.kinds) };
  }),
);

const results = new Map<string, { passed: number; failed: string[] }>();
function record(check: string, site: string, problems: string[]) {
  const entry = results.get(check) ?? { passed: 0, failed: [] };
  if (problems.length === 0) entry.passed++;
  else entry.failed.push(`${site}:\n    ${problems.slice(0, 8).join("\n    ")}`);
  results.set(check, entry);
}

afterAll(() => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const lines = [...results].map(([check, { passed, failed }]) => `${String(passed).padStart(3)}/${passed + failed.length}  ${check}`);
  const details = [...results].flatMap(([check, { failed }]) => (failed.length ? [`\n## ${check}\n`, ...failed] : []));
  writeFileSync(`${ARTIFACTS}summary.txt`, `${lines.join("\n")}\n${details.join("\n")}\n`);
  console.log(`Real READMEs, sites passing each check:\n${lines.join("\n")}`);
});

describe("real READMEs: the corpus", () => {
  it("holds at least 30 READMEs of many kinds, each with its upstream commit, path and license", () => {
    expect(REAL_READMES.length).toBeGreaterThanOrEqual(30);
    for (const entry of REAL_READMES) {
      expect(entry.source.repo, entry.id).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(entry.source.commit, entry.id).toMatch(/^[0-9a-f]{40}$/);
      expect(entry.source.license, entry.id).not.toBe("");
      expect(entry.readme.length, entry.id).toBeGreaterThan(500);
    }
    // reStructuredText and AsciiDoc READMEs too.
    expect(REAL_READMES.some((entry) => entry.file.endsWith(".rst"))).toBe(true);
    expect(REAL_READMES.some((entry) => entry.file.endsWith(".adoc"))).toBe(true);
  });
});

for (const check of CHECKS) {
  describe(`real READMEs: ${check.name}`, () => {
    it.each(SITES.map((site) => [site.name, site.checked] as const))("%s", (name, site) => {
      const problems = check.problems(site);
      record(check.name, name, problems);
      expect(problems, problems.join("\n")).toEqual([]);
    });
  });
}

describe("real READMEs: no server path for a local project", () => {
  it.each(LOCAL_SITES.map((local) => [local.name, local] as const))("%s", (name, local) => {
    const problems = serverPathProblems(SERVER_FOLDER, { pages: local.site.pages, html: local.html });
    // For a local project About names nothing or the folder's name as the repository.
    const repository = (local.site.pages.about as AboutContent | undefined)?.facts.find((fact) => fact.label === "Repository");
    if (repository && repository.value !== local.id) problems.push(`About's Repository fact is "${repository.value}", not the folder's name`);
    record("no server path for a local project", name, problems);
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
