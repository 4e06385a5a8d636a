import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  target: "node20",
  sourcemap: true,
  // The server is an optional peer, loaded only for `serve` and `admin`: never bundled.
  external: ["@reposite/server"],
});
