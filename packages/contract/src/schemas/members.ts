import { z } from "zod";

/** A person who registered on a project's published site (never their password). */
export const memberSchema = z
  .strictObject({
    id: z.string().describe("`member_…`; the app receives it as `X-Reposite-Member-Id`"),
    site_id: z.string(),
    email: z.string().describe("Lower case"),
    created_at: z.string().describe("`YYYY-MM-DD HH:MM:SS` UTC"),
    last_sign_in_at: z.string().nullable().describe("When the member last got a session (signing up counts)"),
  })
  .meta({ id: "Member" });
export type Member = z.output<typeof memberSchema>;

export const memberListSchema = z.array(memberSchema);
