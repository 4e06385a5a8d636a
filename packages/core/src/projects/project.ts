import { COLOR_MODES, type DeploymentSummary, type Project, type ProjectDetail, type Wizard } from "@reposite/contract";

export type ProjectType = "saas" | "website" | "landing";
export type PageKind = "template" | "about" | "faq" | "auth";

/** The project type and its pages, saved when a site is generated (as the API shows it). */
export type { Wizard };

export { COLOR_MODES };
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

/**
 * What is stored for a project (`projects:<site_id>`): its own fields. Its hosted app is hosting's
 * record (`DeploymentStore`, `deployments:<site_id>`), its generation plan generation's
 * (`GenerationPlanStore`, `plans:<site_id>`); records from before the split are moved there once
 * (`ProjectRecordsSplit`).
 */
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
  visits: number;
}

/** The app as a project read shows it (the whole of it is `GET …/deployment`). */
export type { DeploymentSummary };

/** A project as the API shows it in lists: the contract's `Project`. */
export type ProjectView = Project;

/** A project read singly: the list view plus the generation plan and the app summary. */
export type ProjectDetailView = ProjectDetail;

/** The logo pages draw: the copied image, never the remote address (no third-party requests). */
export function logoSource(project: Pick<ProjectRecord, "logo_image">): string {
  return project.logo_image ?? "";
}
