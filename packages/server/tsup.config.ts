import { copyFile } from "node:fs/promises";
import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  target: "node20",
  sourcemap: true,
  // The API reference travels with the server, so `/docs/api` reads without the repository.
  onSuccess: () => copyFile(new URL("../../docs/http-api.md", import.meta.url), new URL("./dist/http-api.md", import.meta.url)),
});
