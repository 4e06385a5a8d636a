import protobuf from "protobufjs";

/** The part of one `moby.buildkit.v1.StatusResponse` a build log needs. */
export interface BuildkitStatus {
  vertexes: BuildkitVertex[];
  logs: BuildkitLog[];
  warnings: BuildkitWarning[];
}

/** A step of the build graph (`[build 2/4] RUN npm ci`), sent again each time its state changes. */
export interface BuildkitVertex {
  digest: string;
  name: string;
  cached: boolean;
  started: boolean;
  completed: boolean;
  /** Why the step failed (`executor failed running [/bin/sh -c …]: exit code: 3`), or "". */
  error: string;
}

/** A piece of a step's output, not cut at line ends. */
export interface BuildkitLog {
  vertex: string;
  /** 1: stdout, 2: stderr. */
  stream: number;
  msg: Uint8Array;
}

export interface BuildkitWarning {
  vertex: string;
  short: string;
}

/**
 * The message types of BuildKit's control API (moby/buildkit `api/services/control/control.proto`)
 * this reader decodes, by field number; fields it does not name are skipped. Timestamps are only
 * read for being there (a step started or completed).
 */
const SCHEMA = {
  nested: {
    StatusResponse: {
      fields: {
        vertexes: { rule: "repeated", type: "Vertex", id: 1 },
        logs: { rule: "repeated", type: "VertexLog", id: 3 },
        warnings: { rule: "repeated", type: "VertexWarning", id: 4 },
      },
    },
    Vertex: {
      fields: {
        digest: { type: "string", id: 1 },
        name: { type: "string", id: 3 },
        cached: { type: "bool", id: 4 },
        started: { type: "Timestamp", id: 5 },
        completed: { type: "Timestamp", id: 6 },
        error: { type: "string", id: 7 },
      },
    },
    VertexLog: { fields: { vertex: { type: "string", id: 1 }, stream: { type: "int32", id: 3 }, msg: { type: "bytes", id: 4 } } },
    VertexWarning: { fields: { vertex: { type: "string", id: 1 }, short: { type: "bytes", id: 3 } } },
    Timestamp: { fields: { seconds: { type: "int64", id: 1 }, nanos: { type: "int32", id: 2 } } },
  },
};

const StatusResponse = protobuf.Root.fromJSON(SCHEMA).lookupType("StatusResponse");

type Decoded = {
  vertexes?: Array<{ digest?: string; name?: string; cached?: boolean; started?: unknown; completed?: unknown; error?: string }>;
  logs?: Array<{ vertex?: string; stream?: number; msg?: Uint8Array }>;
  warnings?: Array<{ vertex?: string; short?: Uint8Array }>;
};

/** Decodes the base64 `aux` of a `moby.buildkit.trace` message of the Engine's `/build` stream. */
export function decodeBuildkitStatus(aux: string): BuildkitStatus {
  const message = StatusResponse.decode(Buffer.from(aux, "base64")) as unknown as Decoded;
  return {
    vertexes: (message.vertexes ?? []).map((vertex) => ({
      digest: vertex.digest ?? "",
      name: vertex.name ?? "",
      cached: vertex.cached ?? false,
      started: vertex.started != null,
      completed: vertex.completed != null,
      error: vertex.error ?? "",
    })),
    logs: (message.logs ?? []).map((log) => ({ vertex: log.vertex ?? "", stream: log.stream ?? 1, msg: log.msg ?? new Uint8Array() })),
    warnings: (message.warnings ?? []).map((warning) => ({ vertex: warning.vertex ?? "", short: Buffer.from(warning.short ?? []).toString("utf8") })),
  };
}
