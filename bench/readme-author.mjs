// npm run bench:readme: how long the README author takes to write a site's pages from a README.
//
// For each README of the real corpus (packages/test-support/src/readme-corpus/real/) and two
// made-up ones (a README of 20,000 sections, cut at the read limit, and lines of junk that would
// make patterns backtrack), it times:
//   first page   the landing page from a README not seen before (parse + facts + page)
//   other pages  About, FAQ and sign-in from the same README (what the rest of a generation costs)
// BENCH_ROUNDS (3) rounds, medians reported, next to the target: a site's pages from the largest
// README within 1 s on a core of its own. A benchmark reports: it exits 0 whatever it measured,
// 1 when it could not run. See bench/README.md.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { benchFailed, missingBuild, ROOT } from "./lib.mjs";

const CORPUS = join(ROOT, "packages/test-support/src/readme-corpus/real");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET_MS = 1000;
const KINDS = ["template", "about", "faq", "auth"];

function readmes() {
  const real = readdirSync(CORPUS)
    .filter((file) => /\.(md|rst|adoc|txt)$/.test(file) && !/^(SOURCES|SCORES)\.md$/.test(file))
    .map((file) => ({ name: file, text: readFileSync(join(CORPUS, file), "utf8") }));
  const section = "## Part\n\nSome text with **bold**, `code` and [a link](http://x).\n\n- item one\n- item two\n\n```sh\necho hi\n```\n\n";
  return [
    ...real,
    { name: "20,000 sections", text: `# Big\n\nA big README.\n\n${section.repeat(20_000)}` },
    { name: "junk lines", text: ["[".repeat(190_000), "![".repeat(95_000), "<a ".repeat(63_000), "`a <".repeat(47_000)].join("\n\n") },
  ];
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  if (missingBuild(["packages/core/dist/index.js"], "npm run bench:readme")) return;
  const { createReadmeAuthor } = await import("@reposite/core");
  const author = createReadmeAuthor();
  const signal = new AbortController().signal;
  const product = (name, round) => ({
    name: name.replace(/\..*$/, ""),
    description: "",
    // A new address each round: the author keeps the facts of the last few READMEs it read.
    repositoryUrl: `https://github.com/bench/${encodeURIComponent(name)}-${round}`,
    topics: [],
    defaultBranch: "main",
  });
  const page = async (kind, readme, name, round) => {
    const request = { kind, type: "website", product: product(name, round), readme, instructions: null, pages: KINDS, community: false };
    if (author.declines?.(request)) return;
    await author.write(request, () => {}, signal);
  };

  const rows = [];
  for (const { name, text } of readmes()) {
    // The same text under a new name each round, so the first page always reads it afresh.
    const first = [];
    const others = [];
    for (let round = 0; round < ROUNDS; round++) {
      const readme = `${text}\n<!-- ${round} -->\n`;
      let started = performance.now();
      await page("template", readme, name, round);
      first.push(performance.now() - started);
      started = performance.now();
      for (const kind of KINDS.slice(1)) await page(kind, readme, name, round);
      others.push(performance.now() - started);
    }
    rows.push({ name, size: text.length, first: median(first), others: median(others) });
  }

  const width = Math.max(...rows.map((row) => row.name.length));
  console.log(`${"README".padEnd(width)}  ${"chars".padStart(7)}  ${"first page".padStart(10)}  ${"other pages".padStart(11)}`);
  for (const row of rows) {
    console.log(`${row.name.padEnd(width)}  ${String(row.size).padStart(7)}  ${row.first.toFixed(1).padStart(7)} ms  ${row.others.toFixed(1).padStart(8)} ms`);
  }
  const slowest = rows.reduce((a, b) => (a.first + a.others >= b.first + b.others ? a : b));
  const total = slowest.first + slowest.others;
  console.log(`\nslowest site: ${slowest.name}, ${total.toFixed(0)} ms for its ${KINDS.length} pages (target: within ${TARGET_MS} ms) ${total <= TARGET_MS ? "met" : "MISSED"}`);
}

main().catch(benchFailed);
