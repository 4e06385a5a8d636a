import type { DeploymentRecord } from "../hosting/deployment-record.js";
import type { DeploymentStatus } from "./deployment.js";

export type ProjectType = "saas" | "website" | "landing";
export type PageKind = "template" | "about" | "faq" | "auth";

/** The project type and its pages, saved when a site is generated. */
export interface Wizard {
  mode: ProjectType;
  pages: Exclude<PageKind, "template">[];
  community: boolean;
}

export const COLOR_MODES = ["Dark mode", "Light mode"] as const;
export type ColorMode = (typeof COLOR_MODES)[number] | "";

/** The repository a project was made from, as the repo host described it at creation. */
export interface ProjectRepository {
  host: string;
  owner: string;
  name: string;
  url: string;
  private: boolean;
  default_branch: string;
  description: string;
  topics: string[];
}

/** What is stored for a project. */
export interface ProjectRecord {
  id: string;
  owner_id: string;
  created_at: string;
  updated_at: string;
  repository: ProjectRepository;
  slug: string | null;
  name: string;
  description: string;
  ga_id: string;
  /** A design id, or "" for the automatic pick from the repository's description and topics. */
  design: string;
  color_mode: ColorMode;
  logo_url: string;
  /**
   * The image `logo_url` named when it was set, as a `data:` URL ("" for none): pages carry it
   * inline. Records from before logos were copied have no field.
   */
  logo_image?: string;
  auth_redirect_to_app: boolean;
  wizard: Wizard | null;
  /** The current version of each page that has one. */
  current_pages: Partial<Record<PageKind, string>>;
  /** The hosted app: setup, sealed env, state and container (see `DeploymentRecord`); null until set up. */
  deployment: DeploymentRecord | null;
  visits: number;
}

/** The app as a project read shows it (the whole of it is `GET …/deployment`). */
export interface DeploymentSummary {
  status: DeploymentStatus;
  url: string;
}

/** A project as the API shows it in lists. */
export interface ProjectView {
  id: string;
  slug: string | null;
  url: string | null;
  name: string;
  description: string;
  ga_id: string;
  design: string;
  color_mode: ColorMode;
  logo_url: string;
  auth_redirect_to_app: boolean;
  repohost_url: string;
  private: boolean;
  created_at: string;
  updated_at: string;
  /** Page views of the published site. */
  visits: number;
  /** The hosted app's status, or null when the project has no app. */
  app_status: DeploymentStatus | null;
}

/** A project read singly: the list view plus the generation plan and the app summary. */
export interface ProjectDetailView extends ProjectView {
  wizard: Wizard | null;
  deployment: DeploymentSummary | null;
}

/** The logo pages draw: the copied image, never the remote address (no third-party requests). */
export function logoSource(project: Pick<ProjectRecord, "logo_image">): string {
  return project.logo_image ?? "";
}
