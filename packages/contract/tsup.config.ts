import { defineConfig } from "tsup";

export default defineConfig({
  // errors.ts on its own too: clients load the code table without zod.
  entry: ["src/index.ts", "src/errors.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  target: "node20",
  sourcemap: true,
});
