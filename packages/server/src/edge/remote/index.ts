export { startRemoteEdge, type RemoteEdge, type RemoteEdgeOptions } from "./remote-edge.js";
export { EDGE_FEED_SETTINGS, EDGE_TOKEN_MIN_LENGTH, type EdgeFeedSettings } from "./edge-token.js";
