/**
 * A README fixture of the corpus: a README written for the tests in the shape of a real
 * project's (badges, HTML headers, tables, lists, `<details>`), the repository facts an author
 * needs, and what a faithful site must keep from it.
 */
export interface ReadmeFixture {
  /** Short id for test names. */
  id: string;
  /** What kind of project the README is shaped like. */
  shape: string;
  readme: string;
  product: { name: string; description: string; repositoryUrl: string; topics: string[]; defaultBranch: string };
  expect: {
    /** The product name as the site must write it. */
    name: string;
    /** Tables in the README that must appear as tables. */
    tables: number;
    /** Numbers from the README's text that must survive into the pages. */
    numbers: string[];
    /** The README's install command, or null when it has none (no install block may appear). */
    installCommand: string | null;
    /** Questions the README asks (0: no FAQ page). */
    questions: number;
    /** The README's main screenshot, absolute, or null. */
    heroImage: string | null;
    /** The README's Download link, or null. */
    download: string | null;
    /** The landing page's headline, when the test pins it (the README's opening, shortened to a clause). */
    heroTitle?: string;
    /** The feature cards' titles, when the test pins them (bold leads, without the rest of their sentence). */
    featureTitles?: string[];
    /** Headings of sections for the people who run the project (settings, payments, HTTPS): not on the landing page while it has product sections to show. */
    operatorSections?: string[];
  };
}
