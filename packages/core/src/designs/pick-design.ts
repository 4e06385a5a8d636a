import { DESIGNS } from "./catalogue.js";
import type { Design } from "./design.js";

/** The repository facts a design is chosen from (a subset of the repo host's `RepoFacts`). */
export interface PickDesignInput {
  name: string;
  description: string;
  topics: string[];
}

// Topics are chosen by the maintainers to classify the repository, so they are stronger evidence
// than a word that happens to appear in a sentence. A word inside a hyphenated topic
// ("rust-cli") is still deliberate, but less precise than the whole topic.
const TOPIC_WEIGHT = 3;
const TOPIC_PART_WEIGHT = 2;
const TEXT_WEIGHT = 1;

/**
 * The design that best fits a repository. The same repository always gets the same design, so
 * a regenerated site keeps its look and tests can pin the outcome.
 */
export function pickDesign(repo: PickDesignInput): Design {
  const topicTerms = new Set<string>();
  const topicPartTerms = new Set<string>();
  for (const topic of repo.topics) {
    const parts = words(topic);
    if (parts.length === 0) continue;
    topicTerms.add(parts.join("-"));
    for (const part of parts) topicPartTerms.add(part);
  }
  const textTerms = new Set<string>();
  for (const text of [repo.name, repo.description]) {
    const found = words(text);
    found.forEach((word, i) => {
      textTerms.add(word);
      // Adjacent pairs let "machine learning" in prose meet the keyword "machine-learning".
      if (i > 0) textTerms.add(`${found[i - 1]}-${word}`);
    });
  }

  let best: Design[] = [];
  let bestScore = -1;
  for (const design of DESIGNS) {
    const score = scoreDesign(design, topicTerms, topicPartTerms, textTerms);
    if (score > bestScore) {
      best = [design];
      bestScore = score;
    } else if (score === bestScore) {
      best.push(design);
    }
  }
  return breakTie(best, repo.name);
}

function scoreDesign(design: Design, topics: Set<string>, topicParts: Set<string>, text: Set<string>): number {
  let score = 0;
  // Keywords like "note" and "notes" normalise to one term; counting it twice would favour
  // designs whose keyword lists happen to repeat themselves.
  for (const keyword of new Set(design.keywords.map((k) => words(k).join("-")))) {
    if (topics.has(keyword)) score += TOPIC_WEIGHT;
    else if (topicParts.has(keyword)) score += TOPIC_PART_WEIGHT;
    if (text.has(keyword)) score += TEXT_WEIGHT;
  }
  return score;
}

/**
 * Rendezvous hashing: every tied design gets a hash of (repository, design) and the highest wins.
 * Unlike `hash % tied.length`, the winner does not depend on catalogue order, and adding or
 * removing a design only moves the repositories that design wins or loses.
 */
function breakTie(tied: Design[], repoName: string): Design {
  // Repository names are case-insensitive on code hosts; "Foo" and "foo" are one repository.
  const key = repoName.trim().toLowerCase();
  let winner: Design | undefined;
  let winnerHash = -1;
  for (const design of tied) {
    const hash = fnv1a(`${key}\u0000${design.id}`);
    if (hash > winnerHash || (hash === winnerHash && winner !== undefined && design.id < winner.id)) {
      winner = design;
      winnerHash = hash;
    }
  }
  if (!winner) throw new Error("[reposite] [designs] the design catalogue is empty");
  return winner;
}

/** 32-bit FNV-1a over UTF-8 bytes, so the result matches other implementations of the same hash. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Lower-case alphanumeric words, lightly stemmed so "databases" meets "database". */
function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0)
    .map(stem);
}

function stem(word: string): string {
  // Short words ("ios", "gis", "aws", "css") end in "s" without being plurals.
  if (word.length <= 3) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith("ss") || word.endsWith("us") || word.endsWith("is")) return word;
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}
