import { Readable } from "node:stream";
import type { AppImage, ImageBuilder } from "@reposite/core";
import { buildLocalBaseImages, writeTar } from "@reposite/test-support";

/** Builds `server` (a Node program) into an image that says `version` (APP_VERSION), as a version of a test app. */
export async function buildVersionImage(builder: ImageBuilder, app: { server: string; version: string; tag: string; labels: Record<string, string> }): Promise<AppImage> {
  const { node } = await buildLocalBaseImages();
  const dockerfile = [`FROM ${node}`, "COPY server.js /app/server.js", `ENV APP_VERSION=${app.version}`, 'CMD ["node", "/app/server.js"]', ""].join("\n");
  const tar = writeTar([
    { path: "Dockerfile", type: "file", content: Buffer.from(dockerfile) },
    { path: "server.js", type: "file", content: Buffer.from(app.server) },
  ]);
  return builder.build({ context: Readable.from([tar]), dockerfile: "Dockerfile", tag: app.tag, labels: app.labels, memoryMb: 256, timeoutMs: 120_000, onLog: () => undefined });
}
