import { defineOperation } from "../operation.js";
import {
  createProjectSchema,
  deleteProjectQuerySchema,
  projectDetailSchema,
  projectListSchema,
  siteParamsSchema,
  updateProjectSchema,
} from "../schemas/projects.js";

export * from "../schemas/projects.js";

export const projectsCreate = defineOperation({
  id: "projects.create",
  method: "POST",
  path: "/app/sites",
  tag: "Projects",
  summary: "Create a project from a repository link; the design is picked from the repository when not given",
  auth: "token",
  body: createProjectSchema,
  answers: { 201: { description: "The new project", schema: projectDetailSchema } },
  errors: ["invalid_request", "unknown_design", "invalid_repo_url", "repo_not_found", "repohost_unavailable", "repohost_rate_limited"],
});

export const projectsList = defineOperation({
  id: "projects.list",
  method: "GET",
  path: "/app/sites",
  tag: "Projects",
  summary: "The caller's projects, newest first, with address, visits and app state",
  auth: "token",
  answers: { 200: { description: "The projects", schema: projectListSchema } },
});

export const projectsGet = defineOperation({
  id: "projects.get",
  method: "GET",
  path: "/app/sites/:site_id",
  tag: "Projects",
  summary: "One project, with its generation plan (`wizard`) and app summary (`deployment`)",
  auth: "token",
  params: siteParamsSchema,
  answers: { 200: { description: "The project", schema: projectDetailSchema } },
  errors: ["not_found"],
});

export const projectsUpdate = defineOperation({
  id: "projects.update",
  method: "PATCH",
  path: "/app/sites/:site_id",
  tag: "Projects",
  summary: "Change a project's settings; a new design shows after the next generation",
  auth: "token",
  params: siteParamsSchema,
  body: updateProjectSchema,
  answers: { 200: { description: "The project as changed", schema: projectDetailSchema } },
  errors: ["not_found", "invalid_request", "unknown_design", "logo_unavailable", "auth_redirect_unavailable"],
});

export const projectsDelete = defineOperation({
  id: "projects.delete",
  method: "DELETE",
  path: "/app/sites/:site_id",
  tag: "Projects",
  summary: "Delete a project and its hosted app; the published site stays up unless `purge=1`",
  auth: "token",
  params: siteParamsSchema,
  query: deleteProjectQuerySchema,
  answers: { 204: { description: "Deleted" } },
  errors: ["not_found", "invalid_request"],
});
