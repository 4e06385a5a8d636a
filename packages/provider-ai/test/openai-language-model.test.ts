import { RepositeError, type LanguageModel } from "@reposite/core";
import { freePort,languageModelContract, startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions } from "@reposite/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAILanguageModel, DEFAULT_OPENAI_MODEL, languageModelFromEnv, NO_API_KEY, type OpenAILanguageModelOptions } from "../src/index.js";

const KEY = "sk-test-Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5";
const REQUEST = { system: "You write product pages.", prompt: "Write the page for reposite/reposite." };

languageModelContract("OpenAI chat completions API, on a loopback fake", async ({ reply, delayMs }) => {
  const fake = await startFakeOpenAI({ replies: [reply], ...(delayMs !== undefined ? { delayMs } : {}), apiKey: KEY });
  const model = createOpenAILanguageModel({ apiKey: KEY, baseURL: fake.url, maxRetries: 0 });
  return { model, serverSawAbort: () => fake.requests.some((request) => request.aborted), teardown: () => fake.close() };
});

languageModelContract("OpenAI responses API, on a loopback fake", async ({ reply, delayMs }) => {
  const fake = await startFakeOpenAI({ replies: [reply], ...(delayMs !== undefined ? { delayMs } : {}), apiKey: KEY });
  const model = createOpenAILanguageModel({ apiKey: KEY, baseURL: fake.url, api: "responses", maxRetries: 0 });
  return { model, serverSawAbort: () => fake.requests.some((request) => request.aborted), teardown: () => fake.close() };
});

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(options: Partial<FakeOpenAIOptions> = {}) {
  fake = await startFakeOpenAI({ replies: ["Hello from the fake."], apiKey: KEY, ...options });
  return fake;
}

function modelOn(server: FakeOpenAI, options: Partial<OpenAILanguageModelOptions> = {}): LanguageModel {
  return createOpenAILanguageModel({ apiKey: KEY, baseURL: server.url, maxRetries: 0, ...options });
}

async function text(stream: AsyncIterable<string>): Promise<string> {
  let out = "";
  for await (const delta of stream) out += delta;
  return out;
}

async function failure(stream: AsyncIterable<string>): Promise<RepositeError> {
  const error = await text(stream).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!RepositeError.isInstance(error)) throw new Error(`expected a RepositeError, got ${String(error)}`);
  return error;
}

describe("createOpenAILanguageModel: what it sends", () => {
  it("streams a chat completion: path, model, messages, max tokens, temperature and the bearer key", async () => {
    const server = await start();
    const model = modelOn(server, { model: "gpt-4.1-nano", temperature: 0.2, headers: { "x-gateway-route": "pages" } });
    expect(model).toMatchObject({ provider: "openai", modelId: "gpt-4.1-nano" });

    expect(await text(model.streamText({ ...REQUEST, maxOutputTokens: 1234 }))).toBe("Hello from the fake.");

    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request).toMatchObject({ method: "POST", path: "/v1/chat/completions", aborted: false });
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request!.headers["x-gateway-route"]).toBe("pages");
    expect(request!.body).toMatchObject({
      model: "gpt-4.1-nano",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 1234,
      temperature: 0.2,
      messages: [
        { role: "system", content: REQUEST.system },
        { role: "user", content: REQUEST.prompt },
      ],
    });
  });

  it("asks for gpt-4.1-mini by default and sends no max tokens when none is given", async () => {
    const server = await start();
    const model = modelOn(server);
    expect(model.modelId).toBe(DEFAULT_OPENAI_MODEL);
    await text(model.streamText(REQUEST));
    expect(server.requests[0]!.body).toMatchObject({ model: "gpt-4.1-mini", stream: true });
    expect(server.requests[0]!.body).not.toHaveProperty("max_tokens");
    expect(server.requests[0]!.body).not.toHaveProperty("temperature");
  });

  it("works with a base URL that has a path prefix, as behind a gateway", async () => {
    const server = await start({ pathPrefix: "/gateway/openai" });
    expect(server.url).toMatch(/\/gateway\/openai\/v1$/);
    expect(await text(modelOn(server).streamText(REQUEST))).toBe("Hello from the fake.");
    expect(server.requests.map((request) => request.path)).toEqual(["/gateway/openai/v1/chat/completions"]);
  });

  it("uses the responses API when asked: /v1/responses with instructions as a system message and max_output_tokens", async () => {
    const server = await start();
    const model = modelOn(server, { api: "responses" });
    expect(await text(model.streamText({ ...REQUEST, maxOutputTokens: 800 }))).toBe("Hello from the fake.");
    const [request] = server.requests;
    expect(request).toMatchObject({ method: "POST", path: "/v1/responses" });
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request!.body).toMatchObject({ model: "gpt-4.1-mini", stream: true, max_output_tokens: 800 });
    expect(JSON.stringify(request!.body!.input)).toContain(REQUEST.system);
    expect(JSON.stringify(request!.body!.input)).toContain(REQUEST.prompt);
  });

  it("goes through the fetch it is given", async () => {
    const server = await start();
    const seen: string[] = [];
    const model = modelOn(server, {
      fetch: (input, init) => {
        seen.push(String(input instanceof Request ? input.url : input));
        return globalThis.fetch(input, init);
      },
    });
    await text(model.streamText(REQUEST));
    expect(seen).toEqual([`${server.url}/chat/completions`]);
  });
});

describe("createOpenAILanguageModel: failures", () => {
  it("reports a key the server refuses as 502 ai_rejected without the key, and does not retry it", async () => {
    const server = await start();
    const wrong = "sk-wrong-S3cr3tV4lu3ThatMustNotLeak";
    // Default retries on: a 401 is not retryable, so one request is all it takes.
    const model = createOpenAILanguageModel({ apiKey: wrong, baseURL: server.url });
    const error = await failure(model.streamText(REQUEST));
    expect(error.status).toBe(502);
    expect(error.code).toBe("ai_rejected");
    expect(error.message).toMatch(/^\[ai\] \[openai\] gpt-4\.1-mini: the model server refused the request \(401\)/);
    // The fake echoes the presented key in full; it must not come through.
    expect(error.message).toContain("Incorrect API key provided");
    expect(error.message).not.toContain(wrong);
    expect(JSON.stringify(error)).not.toContain(wrong);
    expect(server.requests).toHaveLength(1);
  });

  it("reports an unknown model (404) as 502 ai_rejected with the server's reason", async () => {
    const server = await start({
      failWith: { status: 404, body: { error: { message: "The model `gpt-nope` does not exist.", type: "invalid_request_error", code: "model_not_found" } } },
    });
    const error = await failure(modelOn(server, { model: "gpt-nope" }).streamText(REQUEST));
    expect(error).toMatchObject({ status: 502, code: "ai_rejected" });
    expect(error.message).toContain("The model `gpt-nope` does not exist.");
  });

  it("reports a server error as 502 ai_unavailable, at once with maxRetries 0", async () => {
    const server = await start({ failWith: { status: 500 } });
    const error = await failure(modelOn(server, { maxRetries: 0 }).streamText(REQUEST));
    expect(error).toMatchObject({ status: 502, code: "ai_unavailable" });
    expect(error.message).toMatch(/the model server failed \(500\)/);
    expect(server.requests).toHaveLength(1);
  });

  it("retries a server error as often as maxRetries allows, honouring retry-after-ms, and then answers", async () => {
    const server = await start({ failWith: { status: 503, times: 1, headers: { "retry-after-ms": "10" } } });
    expect(await text(modelOn(server, { maxRetries: 1 }).streamText(REQUEST))).toBe("Hello from the fake.");
    expect(server.requests).toHaveLength(2);
  });

  it("reports rate limiting (429) as 503 ai_rate_limited once the retries are spent", async () => {
    const server = await start({ failWith: { status: 429, headers: { "retry-after-ms": "10" } } });
    const error = await failure(modelOn(server, { maxRetries: 1 }).streamText(REQUEST));
    expect(error).toMatchObject({ status: 503, code: "ai_rate_limited" });
    expect(error.message).toMatch(/rate limiting requests \(429\)/);
    expect(server.requests).toHaveLength(2);
  });

  it("reports a server that is not listening as 502 ai_unavailable", async () => {
    const port = await freePort();
    const model = createOpenAILanguageModel({ apiKey: KEY, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    const error = await failure(model.streamText(REQUEST));
    expect(error).toMatchObject({ status: 502, code: "ai_unavailable" });
    expect(error.message).toMatch(/not reachable: .*ECONNREFUSED/);
    expect(error.message).not.toContain(KEY);
  });

  it("ends with an AbortError, not a RepositeError, when cancelled during retries", async () => {
    const server = await start({ failWith: { status: 500, headers: { "retry-after-ms": "20000" } } });
    const model = modelOn(server, { maxRetries: 2 });
    const started = Date.now();
    await expect(text(model.streamText({ ...REQUEST, signal: AbortSignal.timeout(100) }))).rejects.toMatchObject({ name: "AbortError" });
    // Half the 20 s the server asked to wait, so a busy machine has room: a failure means the
    // abort did not cut the wait before the retry.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(server.requests).toHaveLength(1);
  });
});

describe("languageModelFromEnv", () => {
  it("gives no model when neither OPENAI_API_KEY nor OPENAI_BASE_URL is set (blank counts as unset)", () => {
    expect(languageModelFromEnv({})).toBeUndefined();
    expect(languageModelFromEnv({ REPOSITE_AI_MODEL: "gpt-4.1" })).toBeUndefined();
    expect(languageModelFromEnv({ OPENAI_API_KEY: "  ", OPENAI_BASE_URL: "" })).toBeUndefined();
  });

  it("with only OPENAI_API_KEY, calls OpenAI itself with the key and the default model", async () => {
    const server = await start();
    const seen: string[] = [];
    // Calls meant for api.openai.com are answered by the fake instead.
    const model = languageModelFromEnv(
      { OPENAI_API_KEY: KEY },
      {
        maxRetries: 0,
        fetch: (input, init) => {
          const url = String(input instanceof Request ? input.url : input);
          seen.push(url);
          return globalThis.fetch(url.replace("https://api.openai.com/v1", server.url), init);
        },
      },
    );
    expect(model).toMatchObject({ provider: "openai", modelId: DEFAULT_OPENAI_MODEL });
    expect(await text(model!.streamText(REQUEST))).toBe("Hello from the fake.");
    expect(seen).toEqual(["https://api.openai.com/v1/chat/completions"]);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("with only OPENAI_BASE_URL (a local server), sends a placeholder key and REPOSITE_AI_MODEL", async () => {
    const server = await start({ apiKey: undefined });
    const model = languageModelFromEnv({ OPENAI_BASE_URL: server.url, REPOSITE_AI_MODEL: " llama3.2 " });
    expect(model).toMatchObject({ provider: "openai", modelId: "llama3.2" });
    expect(await text(model!.streamText(REQUEST))).toBe("Hello from the fake.");
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${NO_API_KEY}`);
    expect(server.requests[0]!.body).toMatchObject({ model: "llama3.2" });
  });

  it("with both, sends the key to the configured server", async () => {
    const server = await start();
    const model = languageModelFromEnv({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.url });
    expect(await text(model!.streamText(REQUEST))).toBe("Hello from the fake.");
    expect(server.requests[0]).toMatchObject({ path: "/v1/chat/completions" });
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("refuses an OPENAI_BASE_URL that is not an http(s) URL", () => {
    for (const url of ["localhost:11434/v1", "ftp://example.com/v1"]) {
      expect(() => languageModelFromEnv({ OPENAI_BASE_URL: url })).toThrowError(
        expect.objectContaining({ status: 500, code: "ai_config_invalid" }) as Error,
      );
    }
  });
});
