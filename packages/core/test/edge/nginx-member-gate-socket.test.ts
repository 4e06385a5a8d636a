import { expect, it } from "vitest";
import { memberGateRoutes } from "../../src/edge/nginx-member-gate.js";

// nginx in a container reaches the member gate only on a bind-mounted Unix socket, not on loopback.
it("points the member gate's upstream at a Unix socket or a loopback address", () => {
  expect(memberGateRoutes({ target: { socket: "/srv/reposite/run/member-gate.sock" }, cacheSeconds: 3 }, [])).toContain("  server unix:/srv/reposite/run/member-gate.sock;");
  expect(memberGateRoutes({ target: { host: "127.0.0.1", port: 4100 }, cacheSeconds: 3 }, [])).toContain("  server 127.0.0.1:4100;");
  expect(memberGateRoutes({ target: { host: "::1", port: 4100 }, cacheSeconds: 3 }, [])).toContain("  server [::1]:4100;");
});
