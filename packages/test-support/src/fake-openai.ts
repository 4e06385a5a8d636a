import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request as the fake received it. */
export interface FakeOpenAIRequest {
  method: string;
  /** Path and query as received, path prefix included, for example `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The JSON body, parsed; undefined when there was none or it was not JSON. */
  body: Record<string, unknown> | undefined;
  /** True once the client went away before the answer was complete (it cancelled); the fake stopped writing then. */
  aborted: boolean;
}

export interface FakeOpenAIFailure {
  status: number;
  /** Answer body: an object is sent as JSON, a string as is. Default: an OpenAI-style `{ error: { message, type, code } }`. */
  body?: unknown;
  /** Extra response headers, such as `retry-after-ms` to make a client's retry quick. */
  headers?: Record<string, string>;
  /** Fail only the first this many model requests, then answer normally. Default: every one. */
  times?: number;
}

export interface FakeOpenAIOptions {
  /**
   * What the model answers: a list is used in order, one entry per model request, the last one
   * repeating once the list runs out; a function is asked for each request.
   */
  replies: string[] | ((request: FakeOpenAIRequest) => string);
  /** Characters (code points) per streamed delta. Default 8, so any reply longer than that arrives in pieces. */
  chunkSize?: number;
  /** Pause before each streamed delta, so a test can act mid-stream. Default 0. */
  delayMs?: number;
  /** Answer model requests with this error instead of a reply. */
  failWith?: FakeOpenAIFailure;
  /**
   * The one accepted bearer token; any other gets 401 `invalid_api_key`, with the presented key
   * echoed in full in the message (worse than OpenAI, which masks most of it) so tests prove a
   * client keeps it out of its own errors. Default: any token, or none, is accepted.
   */
  apiKey?: string;
  /** Serve the API under this path, like a proxy or gateway does: `/gateway` gives `…/gateway/v1`. Default none. */
  pathPrefix?: string;
}

export interface FakeOpenAI {
  /** Base address for an OpenAI client, ending with `/v1`, for example `http://127.0.0.1:41234/v1`. */
  url: string;
  /** Every request received, in order. */
  requests: FakeOpenAIRequest[];
  close(): Promise<void>;
}

/**
 * A loopback stand-in for the OpenAI API as OpenAI-compatible servers (Ollama, vLLM, LM Studio)
 * also speak it: `POST /v1/chat/completions`, streamed as server-sent events exactly in OpenAI's
 * chunk format (role, content deltas, a `finish_reason: "stop"` chunk, a usage chunk when
 * `stream_options.include_usage` asks for one, then `data: [DONE]`) or answered as one JSON
 * completion; and `POST /v1/responses`, streamed as Responses API events or answered as JSON.
 * It notices a client that hangs up mid-answer, marks the request `aborted` and stops writing.
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions): Promise<FakeOpenAI> {
  const requests: FakeOpenAIRequest[] = [];
  const prefix = (options.pathPrefix ?? "").replace(/\/+$/, "");
  const chunkSize = Math.max(1, options.chunkSize ?? 8);
  const delayMs = options.delayMs ?? 0;
  let modelRequests = 0;
  let failures = 0;

  const replyFor = (request: FakeOpenAIRequest): string => {
    const { replies } = options;
    if (typeof replies === "function") return replies(request);
    const reply = replies[Math.min(modelRequests - 1, replies.length - 1)];
    if (reply === undefined) throw new Error("[fake-openai] replies is empty");
    return reply;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const record: FakeOpenAIRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: req.headers,
      body: parseJson(raw),
      aborted: false,
    };
    requests.push(record);
    res.on("close", () => {
      if (!res.writableFinished) record.aborted = true;
    });

    const path = new URL(record.path, "http://fake").pathname;
    const route = path.startsWith(`${prefix}/v1/`) ? path.slice(prefix.length + "/v1".length) : undefined;
    const isModelCall = req.method === "POST" && (route === "/chat/completions" || route === "/responses");
    if (!isModelCall) {
      return sendError(res, 404, `Unknown request URL: ${req.method} ${path}.`, "invalid_request_error", "unknown_url");
    }

    const presented = /^Bearer (.*)$/i.exec(req.headers.authorization ?? "")?.[1];
    if (options.apiKey !== undefined && presented !== options.apiKey) {
      return sendError(res, 401, `Incorrect API key provided: ${presented ?? "(none)"}.`, "invalid_request_error", "invalid_api_key");
    }

    modelRequests += 1;
    const failure = options.failWith;
    if (failure && (failure.times === undefined || failures < failure.times)) {
      failures += 1;
      return sendFailure(res, failure);
    }

    if (!record.body || typeof record.body.model !== "string") {
      return sendError(res, 400, "The request body must be JSON with a model.", "invalid_request_error", null);
    }
    const reply = replyFor(record);
    const model = record.body.model;
    const pieces = split(reply, chunkSize);
    const stream = record.body.stream === true;
    const stillWriting = () => !record.aborted && !res.destroyed;
    const pace = () => (delayMs > 0 ? sleep(delayMs) : Promise.resolve());

    if (route === "/chat/completions") {
      if (!stream) return sendJson(res, 200, chatCompletion(model, reply, record.body));
      const includeUsage = (record.body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
      await streamEvents(res, chatCompletionEvents(model, reply, pieces, record.body, includeUsage), pace, stillWriting);
    } else {
      if (!stream) return sendJson(res, 200, responseObject(model, reply, record.body, "completed"));
      await streamEvents(res, responsesEvents(model, reply, pieces, record.body), pace, stillWriting);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, `[fake-openai] ${String(error)}`, "server_error", null);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${prefix}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** One server-sent event: `event` is set for the Responses API only, as OpenAI does. */
interface SseEvent {
  event?: string;
  data: unknown;
}

async function streamEvents(
  res: ServerResponse,
  events: Iterable<SseEvent & { paced?: boolean }>,
  pace: () => Promise<void>,
  stillWriting: () => boolean,
) {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
  for (const { event, data, paced } of events) {
    if (paced) await pace();
    if (!stillWriting()) return;
    const payload = typeof data === "string" ? data : JSON.stringify(data);
    res.write(`${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`);
  }
  if (stillWriting()) res.end();
}

function* chatCompletionEvents(
  model: string,
  reply: string,
  pieces: string[],
  body: Record<string, unknown>,
  includeUsage: boolean,
): Generator<SseEvent & { paced?: boolean }> {
  const id = `chatcmpl-${randomId()}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], usage?: unknown) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    system_fingerprint: "fp_fake",
    choices,
    ...(includeUsage ? { usage: usage ?? null } : {}),
  });
  const choice = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finishReason,
  });
  // Like OpenAI: the first chunk names the role with empty content, then the content arrives in pieces.
  yield { data: chunk([choice({ role: "assistant", content: "", refusal: null })]) };
  for (const piece of pieces) yield { data: chunk([choice({ content: piece })]), paced: true };
  yield { data: chunk([choice({}, "stop")]) };
  if (includeUsage) yield { data: chunk([], usageOf(body, reply, "chat")) };
  yield { data: "[DONE]" };
}

function chatCompletion(model: string, reply: string, body: Record<string, unknown>) {
  return {
    id: `chatcmpl-${randomId()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: "fp_fake",
    choices: [{ index: 0, message: { role: "assistant", content: reply, refusal: null }, logprobs: null, finish_reason: "stop" }],
    usage: usageOf(body, reply, "chat"),
  };
}

function* responsesEvents(model: string, reply: string, pieces: string[], body: Record<string, unknown>): Generator<SseEvent & { paced?: boolean }> {
  const response = responseObject(model, reply, body, "in_progress");
  const itemId = `msg_${randomId()}`;
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) => ({ event: type, data: { type, sequence_number: sequence++, ...fields } });
  const part = (text: string) => ({ type: "output_text", text, annotations: [], logprobs: [] });
  const item = (status: string, content: unknown[]) => ({ id: itemId, type: "message", status, role: "assistant", content });

  yield event("response.created", { response: { ...response, output: [], usage: null } });
  yield event("response.in_progress", { response: { ...response, output: [], usage: null } });
  yield event("response.output_item.added", { output_index: 0, item: item("in_progress", []) });
  yield event("response.content_part.added", { item_id: itemId, output_index: 0, content_index: 0, part: part("") });
  for (const piece of pieces) {
    yield { ...event("response.output_text.delta", { item_id: itemId, output_index: 0, content_index: 0, delta: piece, logprobs: [] }), paced: true };
  }
  yield event("response.output_text.done", { item_id: itemId, output_index: 0, content_index: 0, text: reply, logprobs: [] });
  yield event("response.content_part.done", { item_id: itemId, output_index: 0, content_index: 0, part: part(reply) });
  yield event("response.output_item.done", { output_index: 0, item: item("completed", [part(reply)]) });
  yield event("response.completed", { response: { ...responseObject(model, reply, body, "completed"), id: response.id, created_at: response.created_at } });
}

function responseObject(model: string, reply: string, body: Record<string, unknown>, status: "in_progress" | "completed") {
  return {
    id: `resp_${randomId()}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    output: [
      {
        id: `msg_${randomId()}`,
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: reply, annotations: [], logprobs: [] }],
      },
    ],
    usage: usageOf(body, reply, "responses"),
  };
}

/** Rough token counts (a word is a token): enough for clients that insist on numbers. */
function usageOf(body: Record<string, unknown>, reply: string, api: "chat" | "responses") {
  const count = (text: string) => text.split(/\s+/).filter(Boolean).length;
  const input = count(JSON.stringify(body.messages ?? body.input ?? ""));
  const output = count(reply);
  return api === "chat"
    ? { prompt_tokens: input, completion_tokens: output, total_tokens: input + output }
    : {
        input_tokens: input,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: input + output,
      };
}

function sendFailure(res: ServerResponse, failure: FakeOpenAIFailure) {
  const body =
    failure.body ??
    (failure.status === 429
      ? openAIError("Rate limit reached for requests. Please try again later.", "requests", "rate_limit_exceeded")
      : failure.status >= 500
        ? openAIError("The server had an error while processing your request.", "server_error", null)
        : openAIError(`Request failed with status ${failure.status}.`, "invalid_request_error", null));
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(failure.status, {
    "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json",
    ...failure.headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, type: string, code: string | null) {
  sendJson(res, status, openAIError(message, type, code));
}

function openAIError(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Splits by code points, so no delta ends inside a surrogate pair. */
function split(text: string, size: number): string[] {
  const points = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0; i < points.length; i += size) pieces.push(points.slice(i, i + size).join(""));
  return pieces;
}

function parseJson(text: string): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const randomId = () => randomBytes(12).toString("hex");
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
