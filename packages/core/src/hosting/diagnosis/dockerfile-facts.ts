/** The Dockerfile a run built, as a diagnosis names and reads it. */
export interface DockerfileFacts {
  /** Its path in the build context (`Dockerfile`, `docker/web.Dockerfile`). */
  path: string;
  /** Its text, when it could be read. */
  text: string | null;
  /** Who wrote it: the repository, Reposite for `auto` or a bare box, a fix attempt, or the kept override. */
  origin: "repository" | "auto" | "bare" | "fix" | "override";
}

/** The Dockerfile as a person who did not write it knows it. */
export function dockerfileName(dockerfile: DockerfileFacts | null): string {
  switch (dockerfile?.origin) {
    case "repository":
      return `the repository's ${dockerfile.path}`;
    case "auto":
      return "the Dockerfile Reposite wrote for this repository";
    case "bare":
      return "the bare box's Dockerfile";
    case "fix":
      return "the Dockerfile this fix attempt wrote";
    case "override":
      return "the fixed Dockerfile Reposite keeps for this app";
    default:
      return "the Dockerfile";
  }
}
