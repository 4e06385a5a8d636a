import { z } from "zod";
import { COLOR_MODES } from "./project.js";

const name = z.string().trim().min(1, "must not be empty").max(100, "at most 100 characters");

const httpUrl = z
  .string()
  .trim()
  .max(2048, "at most 2048 characters")
  .refine((value) => value === "" || isHttpUrl(value), "must be an http(s) URL or empty");

/** What the logo fetcher can request: an absolute http(s) URL that parses (`%2509` in a host does not). */
function isHttpUrl(value: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(value) && URL.canParse(value);
}

/** Google Analytics 4 (`G-…`) and Universal Analytics (`UA-…-…`) ids, or "" to remove. */
const gaId = z
  .string()
  .trim()
  .refine((value) => value === "" || /^(G-[A-Z0-9]{4,20}|UA-\d{4,12}-\d{1,4})$/.test(value), "must look like G-XXXXXXX or UA-000000-0");

export const createProjectSchema = z.strictObject({
  repohost_url: z.string({ message: "repohost_url (a link to the repository) is required" }).trim().min(1).max(2048),
  name: name.optional(),
  design: z.string().trim().optional(),
});
export type CreateProjectInput = z.input<typeof createProjectSchema>;

export const updateProjectSchema = z.strictObject({
  name: name.optional(),
  description: z.string().trim().max(500, "at most 500 characters").optional(),
  ga_id: gaId.optional(),
  design: z.string().trim().optional(),
  color_mode: z.enum(["", ...COLOR_MODES], { message: 'must be "Dark mode", "Light mode" or ""' }).optional(),
  logo_url: httpUrl.optional(),
  auth_redirect_to_app: z.boolean({ message: "must be true or false" }).optional(),
});
export type UpdateProjectInput = z.input<typeof updateProjectSchema>;
