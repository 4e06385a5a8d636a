import { defineConfig } from "vitest/config";

export default defineConfig({
  // Workspace packages export their TypeScript sources under the "@reposite/source" condition,
  // so tests run against src/ without a build step. Namespaced, because dependencies have their
  // own "source" conditions (eventsource-parser, under the AI SDK, points one at .ts files).
  resolve: { conditions: ["@reposite/source"] },
  ssr: { resolve: { conditions: ["@reposite/source"] } },
  test: {
    // bench/: every benchmark runs briefly, so one that no longer runs fails the build.
    include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts", "bench/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Every answer of a contract-bound route is checked against its schema (http/operation-route.ts).
    env: { REPOSITE_CHECK_ANSWERS: "1" },
  },
});
