import { describe, expect, it } from "vitest";
import { DEFAULT_NGINX_IMAGE, nginxPlacementFromEnv } from "../../src/edge/nginx-container.js";

describe("REPOSITE_EDGE_NGINX and REPOSITE_EDGE_NGINX_IMAGE", () => {
  it("runs the machine's nginx by default, and nginx in a container by default on Swarm", () => {
    expect(nginxPlacementFromEnv({}, { swarm: false })).toEqual({ kind: "host" });
    expect(nginxPlacementFromEnv({}, { swarm: true })).toEqual({ kind: "container", image: DEFAULT_NGINX_IMAGE });
    expect(DEFAULT_NGINX_IMAGE).toMatch(/^nginx:/);
  });

  it("takes either place and an image for the container", () => {
    expect(nginxPlacementFromEnv({ REPOSITE_EDGE_NGINX: "host" }, { swarm: true })).toEqual({ kind: "host" });
    expect(nginxPlacementFromEnv({ REPOSITE_EDGE_NGINX: "container", REPOSITE_EDGE_NGINX_IMAGE: "registry.example.com:5000/nginx:1.27" }, { swarm: true })).toEqual({
      kind: "container",
      image: "registry.example.com:5000/nginx:1.27",
    });
    expect(nginxPlacementFromEnv({ REPOSITE_EDGE_NGINX_IMAGE: "" }, { swarm: true })).toEqual({ kind: "container", image: DEFAULT_NGINX_IMAGE });
  });

  it("says what is wrong with a bad value", () => {
    expect(() => nginxPlacementFromEnv({ REPOSITE_EDGE_NGINX: "docker" }, { swarm: true })).toThrow(/REPOSITE_EDGE_NGINX must be host .* or container .* not "docker"/);
    expect(() => nginxPlacementFromEnv({ REPOSITE_EDGE_NGINX_IMAGE: "nginx:1.27" }, { swarm: false })).toThrow(/set REPOSITE_EDGE_NGINX=container too/);
    expect(() => nginxPlacementFromEnv({ REPOSITE_EDGE_NGINX_IMAGE: "nginx latest" }, { swarm: true })).toThrow(/must be an image reference/);
    // The Docker runtime's apps answer on this machine's loopback: out of a container's reach.
    expect(() => nginxPlacementFromEnv({ REPOSITE_EDGE_NGINX: "container" }, { swarm: false })).toThrow(/REPOSITE_EDGE_NGINX=container is for Swarm apps .*Use REPOSITE_EDGE_NGINX=host/);
  });
});
