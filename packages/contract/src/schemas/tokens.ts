import { z } from "zod";

/**
 * Who made a token: the person on the account page, an agent through agent login, or the
 * operator with `reposite admin create-token`.
 */
export const TOKEN_SOURCES = ["account", "agent", "operator"] as const;
export const tokenSourceSchema = z.enum(TOKEN_SOURCES).describe("`account` (the browser), `agent` (agent login) or `operator`");
export type TokenSource = z.output<typeof tokenSourceSchema>;

/** `{token_id}` in a path. Any string: one that no id can be answers as a missing token, `404`. */
export const tokenParamsSchema = z.object({ token_id: z.string().describe("The token's id (`tok_…`)") });

/** What the API shows of a token: never its secret. */
export const tokenSchema = z
  .strictObject({
    id: z.string().describe("`tok_…`"),
    name: z.string().describe("What uses it"),
    hint: z.string().describe("Last characters of the secret, to tell tokens apart"),
    source: tokenSourceSchema,
    created_at: z.string().describe("`YYYY-MM-DD HH:MM:SS` UTC"),
    expires_at: z.string().nullable().describe("`YYYY-MM-DD HH:MM:SS` UTC; null for a token that never expires"),
    last_used_at: z.string().nullable().describe("To the minute; null until first used"),
  })
  .meta({ id: "Token" });
export type Token = z.output<typeof tokenSchema>;

export const tokenListSchema = z.array(tokenSchema).describe("The account's working tokens");
