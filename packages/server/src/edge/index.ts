export { startNginxEdge, type NginxEdge, type NginxEdgeOptions } from "./nginx-edge.js";
