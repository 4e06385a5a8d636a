import { describe, expect, it } from "vitest";
import { settingsFromEnv } from "../src/config-from-env.js";

// REPOSITE_EDGE, REPOSITE_EDGE_NGINX and REPOSITE_SWARM_REACH read together (docs/deploy/swarm.md's matrix).

const swarm = { REPOSITE_RUNTIME: "swarm" };

describe("how Swarm apps are reached, from the edge settings", () => {
  it("reaches apps on their networks with the container edge (the default with swarm), else at their gateway addresses", () => {
    const edge = settingsFromEnv({ ...swarm, REPOSITE_EDGE: "nginx" });
    expect(edge.edgeNginx).toEqual({ kind: "container", image: "nginx:stable" });
    expect(edge.runtime?.swarm.reach).toBe("network");
    expect(settingsFromEnv(swarm).runtime?.swarm.reach).toBe("gateway");
    expect(settingsFromEnv(swarm).edgeNginx).toBeUndefined();
    const host = settingsFromEnv({ ...swarm, REPOSITE_EDGE: "nginx", REPOSITE_EDGE_NGINX: "host" });
    expect([host.edgeNginx, host.runtime?.swarm.reach]).toEqual([{ kind: "host" }, "gateway"]);
    // Without swarm, the edge stays the host's nginx, as before.
    expect(settingsFromEnv({ REPOSITE_EDGE: "nginx" }).edgeNginx).toEqual({ kind: "host" });
  });

  it("refuses a pair that cannot work, naming both settings", () => {
    expect(() => settingsFromEnv({ ...swarm, REPOSITE_EDGE: "nginx", REPOSITE_SWARM_REACH: "gateway" })).toThrow(/REPOSITE_SWARM_REACH=gateway .* nginx in a container .* cannot reach: leave REPOSITE_SWARM_REACH out .* or set REPOSITE_EDGE_NGINX=host/);
    expect(() => settingsFromEnv({ ...swarm, REPOSITE_EDGE: "nginx", REPOSITE_EDGE_NGINX: "host", REPOSITE_SWARM_REACH: "network" })).toThrow(/REPOSITE_SWARM_REACH=network .* the host's nginx .* cannot join/);
    expect(() => settingsFromEnv({ ...swarm, REPOSITE_SWARM_REACH: "network" })).toThrow(/REPOSITE_SWARM_REACH=network .* Reposite's own \/app\/ proxy .* cannot join/);
  });
});
