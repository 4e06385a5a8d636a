import type { HttpChallengeAnswers } from "./certificate-issuer.js";

/** A token the CA may ask for: URL-safe base64, as RFC 8555 §8.3 makes them. */
const TOKEN = /^[A-Za-z0-9_-]{1,256}$/;

/**
 * The answers to HTTP-01 challenges under way, in memory: the challenge route reads them on any
 * host, before host routing, so a custom domain's site never shadows them.
 */
export class HttpChallenges implements HttpChallengeAnswers {
  private readonly answers = new Map<string, string>();

  put(token: string, keyAuthorization: string): void {
    if (!TOKEN.test(token)) throw new Error(`the CA sent a challenge token that is not URL-safe base64: "${token}"`);
    this.answers.set(token, keyAuthorization);
  }

  remove(token: string): void {
    this.answers.delete(token);
  }

  /** The key authorization to answer for `token`, or undefined (the route answers 404). */
  answer(token: string): string | undefined {
    return this.answers.get(token);
  }
}
