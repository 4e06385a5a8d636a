import { ERROR_CODES, type ErrorCode } from "@reposite/contract";
import { RepositeError } from "@reposite/core";
import { H3 } from "h3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { errorResponse } from "../src/http/error-response.js";

/** An app whose one route throws `error`, through the server's error formatter. */
function appThrowing(error: unknown) {
  const app = new H3({ silent: true, onError: errorResponse });
  app.get("/fails", () => {
    throw error;
  });
  return () => app.request("http://127.0.0.1/fails");
}

// Where answers are proved (REPOSITE_CHECK_ANSWERS=1, as vitest.config.ts sets for every test),
// the error formatter holds each error answer to the contract's table of codes: every API test of
// the suite then fails on a code the table does not have, or on a status it does not give it.
describe("error answers against the contract's table of codes", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it("a code of the table, with its status, is answered as thrown", async () => {
    const response = await appThrowing(new RepositeError(409, "Taken.", "slug_taken"))();
    expect(response.status).toBe(ERROR_CODES.slug_taken.status);
    expect(await response.json()).toEqual({ error: "Taken.", code: "slug_taken" });
  });

  it("a second status the table gives a code is answered as thrown", async () => {
    const response = await appThrowing(new RepositeError(401, "Sign in.", "session_required"))();
    expect(response.status).toBe(401);
  });

  it("a code with a status the table does not give it is 500 answer_mismatch", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const response = await appThrowing(new RepositeError(409, "Gone.", "not_found"))();
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: string; code: string };
    expect(body.code).toBe("answer_mismatch");
    expect(body.error).toContain("not_found is answered with 404");
    expect(logged).toHaveBeenCalled();
  });

  it("a code outside the table is 500 answer_mismatch", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const response = await appThrowing(new RepositeError(418, "Tea.", "teapot" as ErrorCode))();
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ code: "answer_mismatch", error: expect.stringContaining('"teapot" is not in the contract') });
  });

  it("without the check (production), the error is answered as thrown", async () => {
    vi.stubEnv("REPOSITE_CHECK_ANSWERS", "");
    const response = await appThrowing(new RepositeError(409, "Gone.", "not_found"))();
    expect(response.status).toBe(409);
  });
});
