import { createServer, type Server, type ServerResponse } from "node:http";

export interface ImageHost {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/** A 1×1 PNG. */
export const TEST_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
export const TEST_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect width="1" height="1"/></svg>';

/**
 * A loopback web host for images (project logos): `/logo.png`, `/logo.svg`, `/hop/<n>` (n redirects
 * to the PNG), `/page.html` (not an image), `/huge.png` and `/huge-streamed.png` (over 64 KB, with
 * and without content-length), `/empty.png`; anything else is 404.
 */
export async function startImageHost(): Promise<ImageHost> {
  const send = (res: ServerResponse, status: number, type: string, body: Buffer | string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": type, ...headers });
    res.end(body);
  };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    const hops = /^\/hop\/(\d+)$/.exec(path);
    if (hops) {
      const left = Number(hops[1]);
      res.writeHead(302, { location: left > 1 ? `/hop/${left - 1}` : "/logo.png" });
      return res.end();
    }
    if (path === "/logo.png") return send(res, 200, "image/png", TEST_PNG);
    if (path === "/logo.svg") return send(res, 200, "image/svg+xml; charset=utf-8", TEST_SVG);
    if (path === "/page.html") return send(res, 200, "text/html", "<h1>not an image</h1>");
    if (path === "/huge.png") return send(res, 200, "image/png", Buffer.alloc(65 * 1024));
    if (path === "/huge-streamed.png") {
      // No content-length: the size is only known by reading.
      res.writeHead(200, { "content-type": "image/png", "transfer-encoding": "chunked" });
      for (let i = 0; i < 20; i++) res.write(Buffer.alloc(8 * 1024));
      return res.end();
    }
    if (path === "/empty.png") return send(res, 200, "image/png", "");
    send(res, 404, "text/plain", "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

