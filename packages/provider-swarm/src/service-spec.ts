import type { AppChange, AppSpec } from "@reposite/core";
import { healthCheck, probeMount, probePath } from "./health-probe.js";
import type { SwarmHealthTiming } from "./swarm-options.js";

const MiB = 1024 * 1024;
const NS = 1_000_000_000;

/** Labels the runtime adds to find what belongs to an app. */
export const LABEL_NETWORK = "dev.reposite.swarm.network";
export const LABEL_VOLUME = "dev.reposite.swarm.volume";
export const LABEL_PORT = "dev.reposite.swarm.port";

export interface ServiceSettings {
  endpointMode: "dnsrr" | "vip";
  probeBinary: string;
  health: SwarmHealthTiming;
  logBytes: number;
  /** The node id an app with a volume is pinned to. */
  volumeNode: string;
  /** The node id every other app is placed on, when apps are reached only there (gateway reach); anywhere when absent. */
  appNode?: string;
}

/**
 * The Swarm service of one app: one replica on its own overlay network, the lock-down of the
 * Docker runtime (every capability dropped, no-new-privileges, an init as PID 1, nothing mounted
 * but its volume and the read-only probe, never the Docker socket), memory and CPU limits and
 * reservations, a pids limit, rotated logs, a health check from outside the image, and start-first
 * updates that roll back on failure. An app with a volume is pinned to the node that holds it;
 * with gateway reach every other app is pinned to the one node whose gateway bridge is reached.
 */
export function serviceSpec(spec: AppSpec, settings: ServiceSettings) {
  const labels = { ...spec.labels, [LABEL_NETWORK]: spec.network, [LABEL_PORT]: String(spec.port), ...(spec.volume ? { [LABEL_VOLUME]: spec.volume.name } : {}) };
  const mounts = [probeMount(settings.probeBinary), ...(spec.volume ? [{ Type: "volume" as const, Source: spec.volume.name, Target: spec.volume.path, VolumeOptions: { Labels: spec.labels } }] : [])];
  return {
    Name: spec.name,
    Labels: labels,
    TaskTemplate: {
      ContainerSpec: {
        Image: spec.image,
        ...(spec.command ? { Command: spec.command } : {}),
        Env: envList(spec.env, spec.port),
        Labels: labels,
        Mounts: mounts,
        Init: true,
        CapabilityDrop: ["ALL"],
        // Honoured by Engines with API 1.46 or later; older ones ignore it (docs/deploy/swarm.md).
        Privileges: { NoNewPrivileges: true },
        HealthCheck: healthCheck(spec.port, probePath(spec.healthPath), settings.health),
        StopGracePeriod: 10 * NS,
      },
      Resources: {
        Limits: { MemoryBytes: Math.round(spec.memoryMb * MiB), NanoCPUs: Math.round(spec.cpus * 1e9), Pids: spec.pidsLimit },
        Reservations: {
          ...(spec.memoryReservationMb ? { MemoryBytes: Math.round(spec.memoryReservationMb * MiB) } : {}),
          ...(spec.cpuReservation ? { NanoCPUs: Math.round(spec.cpuReservation * 1e9) } : {}),
        },
      },
      // A crashed app is started again a few times; an app that keeps failing stays down for core to diagnose.
      RestartPolicy: { Condition: "on-failure", Delay: 2 * NS, MaxAttempts: 3 },
      Placement: placement(spec.volume ? settings.volumeNode : settings.appNode),
      Networks: [{ Target: spec.network }],
      ForceUpdate: 0 as number,
      LogDriver: { Name: "json-file", Options: { "max-size": String(Math.ceil(settings.logBytes / 2)), "max-file": "2" } },
    },
    Mode: { Replicated: { Replicas: 1 } },
    UpdateConfig: { Parallelism: 1, Order: "start-first", FailureAction: "rollback", Monitor: 5 * NS, MaxFailureRatio: 0 },
    RollbackConfig: { Parallelism: 1, Order: "start-first", FailureAction: "pause", Monitor: 5 * NS, MaxFailureRatio: 0 },
    EndpointSpec: { Mode: settings.endpointMode },
  };
}

export type ServiceSpec = ReturnType<typeof serviceSpec>;

/** The current spec with a new image (and env), ready for `service.update`. */
export function changedSpec(current: ServiceSpec, change: AppChange, port: number): ServiceSpec {
  const container = current.TaskTemplate.ContainerSpec;
  const labels = change.labels ? { ...current.Labels, ...change.labels } : current.Labels;
  return {
    ...current,
    Labels: labels,
    TaskTemplate: {
      ...current.TaskTemplate,
      ContainerSpec: { ...container, Image: change.image, Labels: labels, ...(change.env ? { Env: envList(change.env, port) } : {}) },
      // Counted up so the update rolls out even when nothing else changed (a redeploy of the same image).
      ForceUpdate: (current.TaskTemplate.ForceUpdate ?? 0) + 1,
    },
  };
}

function placement(node: string | undefined): { Constraints?: string[] } {
  return node ? { Constraints: [`node.id==${node}`] } : {};
}

function envList(env: Record<string, string>, port: number): string[] {
  return Object.entries({ ...env, PORT: String(port) }).map(([key, value]) => `${key}=${value}`);
}
