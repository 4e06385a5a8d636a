import { z } from "zod";
import { idSchema } from "./ids.js";
import { tokenSchema } from "./tokens.js";

/** `POST /agent/login`: the program asking, and optionally the person's email. */
export const agentLoginSchema = z.strictObject({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.email({ message: "must be a valid email address" }))
    .optional()
    .describe("The person's email: a sign-in link is mailed there (a new address gets an account)"),
  client: z
    .string({ message: "client (the name of the program asking) is required" })
    .trim()
    .min(1)
    .max(100)
    .describe("The name of the program asking, shown to the person"),
});
export type AgentLoginInput = z.input<typeof agentLoginSchema>;

/** What `POST /agent/login` answers (`201`). */
export const loginRequestSchema = z
  .strictObject({
    request_id: z.string().describe("`login_…`; only the agent holds it"),
    verification_url: z.string().describe("The page the person opens to sign in and see the code"),
    expires_in: z.number().int().describe("Seconds the request lives (900)"),
    email_sent: z.boolean(),
    email_error: z.string().optional().describe("Why no email went out, when one was asked for"),
    next_step: z.string().describe("What to tell the person, in a sentence"),
  })
  .meta({ id: "LoginRequest" });
export type LoginRequest = z.output<typeof loginRequestSchema>;

/** `POST /agent/token`: the request and the code the person read out (case and the dash do not matter). */
export const agentTokenExchangeSchema = z.strictObject({
  request_id: idSchema("login", "request_id").describe("From `POST /agent/login`"),
  code: z.string({ message: "code is required" }).min(1).max(20).describe("`ABCD-EFGH`, as the person reads it out"),
});
export type AgentTokenExchangeInput = z.input<typeof agentTokenExchangeSchema>;

export const userSchema = z
  .strictObject({ id: z.string().describe("`acct_…`"), email: z.string() })
  .meta({ id: "User" });
export type User = z.output<typeof userSchema>;

/** What `POST /agent/token` answers: the secret, once. */
export const agentTokenSchema = z
  .strictObject({
    token: z.string().describe("The secret: keep it out of URLs, logs and commits"),
    token_type: z.literal("Bearer"),
    token_id: z.string(),
    expires_at: z.string().nullable().describe("`YYYY-MM-DD HH:MM:SS` UTC (90 days)"),
    user: userSchema,
  })
  .meta({ id: "AgentToken" });
export type AgentToken = z.output<typeof agentTokenSchema>;

/** What `GET /agent/me` answers: who the token acts as, and the token. */
export const meSchema = z
  .strictObject({
    user: userSchema,
    auth: z.literal("token"),
    token: tokenSchema,
  })
  .meta({ id: "Me" });
export type Me = z.output<typeof meSchema>;
