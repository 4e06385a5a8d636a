import { unprocessable } from "../errors.js";
import type { ProjectType } from "../projects/project.js";

/**
 * A private repository can only become a `saas` project: a product site about what the app does,
 * which tells nothing the repository keeps private. Call it wherever a project type is chosen
 * (generation plans, regeneration with a new plan); it throws `422 private_repo`.
 */
export function assertTypeAllowed(repository: { private: boolean }, type: ProjectType): void {
  if (repository.private && type !== "saas") {
    throw unprocessable(
      `This project's repository is private, so it can only become a saas project (a product site about the app); "${type}" would publish pages about the repository itself.`,
      "private_repo",
      { field: "mode" },
    );
  }
}
