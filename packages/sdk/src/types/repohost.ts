/** `GET /app/repohost/repo?url=`: whether the repository exists for this account, and is private. */
export interface RepoAccessCheck {
  exists: boolean;
  private: boolean;
}

/** `POST /app/repohost/connect`: the person opens `url` in a browser and authorizes. */
export interface RepohostConnect {
  url: string;
}

/** `GET /app/repohost`. */
export interface RepohostStatus {
  /** True once the person authorized. */
  connected: boolean;
}
