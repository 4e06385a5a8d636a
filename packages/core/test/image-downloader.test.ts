import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { freePort, startImageHost, TEST_PNG as PNG, TEST_SVG as SVG, type ImageHost } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ImageDownloader, ImageUnavailable, LogoFetcher, MAX_LOGO_BYTES, MAX_SITE_IMAGE_BYTES, type RepositeConfig } from "../src/index.js";

const downloader = (allowPrivateFetch: boolean) => new ImageDownloader({ allowPrivateFetch });
const LOGO = { maxBytes: MAX_LOGO_BYTES, purpose: "test" };
const PICTURE = { maxBytes: MAX_SITE_IMAGE_BYTES, purpose: "test" };

describe("the image downloader both logos and README pictures use", () => {
  let host: ImageHost;
  let slow: Server;
  let slowUrl: string;
  beforeAll(async () => {
    host = await startImageHost();
    // Answers headers, then never finishes the body.
    slow = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "image/png" });
      res.write(PNG);
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow.png`;
  });
  afterAll(async () => {
    slow.closeAllConnections();
    await new Promise<void>((resolve) => slow.close(() => resolve()));
    await host.close();
  });

  it("answers the bytes and the type without its parameters, following up to 3 redirects", async () => {
    expect(await downloader(true).download(`${host.url}/logo.png`, LOGO)).toEqual({ contentType: "image/png", body: PNG });
    expect(await downloader(true).download(`${host.url}/logo.svg`, LOGO)).toEqual({ contentType: "image/svg+xml", body: Buffer.from(SVG) });
    expect((await downloader(true).download(`${host.url}/hop/3`, LOGO)).body).toEqual(PNG);
  });

  it.each([
    ["/hop/4", /redirects more than 3 times/],
    ["/missing.png", /answered 404/],
    ["/page.html", /is text\/html, not a PNG, JPEG, GIF, WebP, AVIF or SVG image/],
    ["/empty.png", /is empty/],
    ["/huge.png", /larger than 64 KB/],
    ["/huge-streamed.png", /larger than 64 KB/],
  ])("refuses %s, saying why", async (path, reason) => {
    const refusal = await downloader(true).download(`${host.url}${path}`, LOGO).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ImageUnavailable);
    expect((refusal as ImageUnavailable).reason).toMatch(reason);
  });

  it("takes the limit of each use: a 65 KB picture is too large for a logo, not for a README picture", async () => {
    await expect(downloader(true).download(`${host.url}/huge.png`, LOGO)).rejects.toBeInstanceOf(ImageUnavailable);
    expect((await downloader(true).download(`${host.url}/huge.png`, PICTURE)).body.length).toBe(65 * 1024);
    expect((await downloader(true).download(`${host.url}/huge-streamed.png`, PICTURE)).body.length).toBe(160 * 1024);
  });

  it("never calls loopback or private addresses unless the operator allows it", async () => {
    const port = new URL(host.url).port;
    for (const url of [`${host.url}/logo.png`, `http://[::1]:${port}/logo.png`, "http://169.254.169.254/latest/meta-data"]) {
      await expect(downloader(false).download(url, PICTURE)).rejects.toMatchObject({ reason: expect.stringMatching(/not on the public internet/) });
    }
    await expect(downloader(false).download(`http://localhost:${port}/logo.png`, PICTURE)).rejects.toMatchObject({
      reason: expect.stringMatching(/localhost resolves to .* not on the public internet/),
    });
  });

  it("refuses addresses that are not http(s) and says when nothing answers", async () => {
    await expect(downloader(true).download("file:///etc/passwd", PICTURE)).rejects.toMatchObject({ reason: expect.stringMatching(/file: addresses, not http\(s\)/) });
    await expect(downloader(true).download("not a url", PICTURE)).rejects.toMatchObject({ reason: "it is not a valid URL." });
    const port = await freePort();
    await expect(downloader(true).download(`http://127.0.0.1:${port}/x.png`, PICTURE)).rejects.toMatchObject({ reason: expect.stringMatching(/could not be reached/) });
  });

  it("stops when its signal aborts (a cancelled generation)", async () => {
    const controller = new AbortController();
    const download = downloader(true).download(slowUrl, { ...PICTURE, signal: controller.signal });
    setTimeout(() => controller.abort(new Error("cancelled")), 50);
    await expect(download).rejects.toBeInstanceOf(ImageUnavailable);
  });

  it("is what LogoFetcher uses, with the logo's 64 KB limit and its 422", async () => {
    const logos = new LogoFetcher({ allowPrivateFetch: true } as RepositeConfig);
    expect(await logos.fetchAsDataUrl(`${host.url}/logo.png`)).toBe(`data:image/png;base64,${PNG.toString("base64")}`);
    await expect(logos.fetchAsDataUrl(`${host.url}/huge.png`)).rejects.toMatchObject({
      status: 422,
      code: "logo_unavailable",
      message: `The logo at ${host.url}/huge.png could not be used: it is larger than 64 KB.`,
    });
  });
});
