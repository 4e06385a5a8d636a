import { judgeRepoCheck, loadRepoCorpus } from "@reposite/test-support";
import { describe, expect, it } from "vitest";
import { checkRepository } from "../../src/repo-analysis/check-repository.js";
import { sourceTreeFromFiles } from "../../src/repo-analysis/source-tree.js";

/**
 * The repository check on real public repositories (packages/test-support/src/repo-corpus): each
 * entry's expected answer is what a careful engineer gives. Prints one line per entry and the
 * score; at least 90 % must be right.
 */
const corpus = loadRepoCorpus();

describe("the repository check on real repositories", () => {
  it("every entry lists exactly the files it keeps, with its origin and license", () => {
    for (const entry of corpus) {
      expect(Object.keys(entry.contents).sort(), entry.id).toEqual([...entry.files].sort());
      expect(entry.origin.repo, entry.id).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(entry.origin.commit, entry.id).toMatch(/^[0-9a-f]{40}$/);
      expect(entry.origin.license, entry.id).not.toBe("");
      expect(entry.why, entry.id).not.toBe("");
    }
  });

  it("is right on at least 90% of them", () => {
    const lines: string[] = [];
    let right = 0;
    for (const entry of corpus) {
      const answer = checkRepository(sourceTreeFromFiles(entry.contents), {
        askedPath: entry.setup?.dockerfile_path ?? "Dockerfile",
        appUrl: "https://example.reposite.test/app/",
        ...(entry.setup?.root_dir ? { rootDir: entry.setup.root_dir } : {}),
      });
      const verdict = judgeRepoCheck(answer, entry.expected, entry.setup?.dockerfile_path);
      if (verdict.right) right++;
      const origin = `${entry.origin.repo}${entry.origin.path ? `/${entry.origin.path}` : ""}`;
      lines.push(`${verdict.right ? "ok  " : "MISS"} ${entry.id} (${entry.stack}, ${origin})${verdict.right ? "" : `\n       ${verdict.differences.join("\n       ")}`}`);
    }
    const score = Math.round((right / corpus.length) * 1000) / 10;
    console.log(`${lines.join("\n")}\nrepository check: right on ${right} of ${corpus.length} real repositories (${score}%)`);
    expect(corpus.length).toBeGreaterThanOrEqual(30);
    expect(score).toBeGreaterThanOrEqual(90);
  });
});
