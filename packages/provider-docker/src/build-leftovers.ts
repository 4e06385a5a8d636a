import type Docker from "dockerode";

/** ` ---> 1a2b3c4d5e6f`: the classic builder names each image it commits (or takes from the cache). */
const STEP_IMAGE = /^ ---> ([0-9a-f]{12,64})\s*$/gm;

/** How long a stopped build may take the Engine to settle (its step's container killed and removed). */
const SETTLE_MS = 5_000;

/**
 * The images one build commits, and their removal once it ends. The classic builder commits an
 * image per step and keeps them all as its cache: a multi-stage build's earlier stages stay as
 * untagged images (with whatever their steps saw), and a failed or stopped build leaves the steps
 * it finished. Once the build ends, every image it made is removed but the one it answers and that
 * image's parents (the cache the next build of the app starts from, removed with it). Images are
 * found two ways: the ids the build stream names, and the images carrying the build's stage labels
 * (see `labelEveryStage`) made since it started, which covers the steps a stopped build committed
 * after its stream was torn down. Tagged images and images older than the build are never touched.
 */
export class BuildLeftovers {
  private readonly named = new Set<string>();
  private readonly since = Date.now();

  constructor(
    private readonly docker: Docker,
    private readonly stageLabels: Record<string, string>,
  ) {}

  /** Notes the image ids in a piece of the build's output. */
  read(output: string): void {
    for (const match of output.matchAll(STEP_IMAGE)) this.named.add(match[1]!);
  }

  /** Removes what the build made that `kept` (the answered image, if any) does not stand on. */
  async remove(kept: string | null): Promise<void> {
    const keep = kept ? await this.ancestry(kept) : new Set<string>();
    await this.removeRound(keep);
  }

  /**
   * For a build that failed or was stopped: removes what it made, again while the Engine settles
   * (a stopped step's container is killed and removed after the stream ended, and holds its image
   * until then).
   */
  async removeAfterStop(): Promise<void> {
    const until = Date.now() + SETTLE_MS;
    while ((await this.removeRound(new Set())) > 0 || (await this.stepContainers())) {
      if (Date.now() > until) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Removes every leftover not in `keep`, children before parents; answers how many could not go yet. */
  private async removeRound(keep: Set<string>): Promise<number> {
    let pending = (await this.candidates()).filter((id) => !keep.has(id));
    while (pending.length > 0) {
      const left: string[] = [];
      for (const id of pending) {
        const status = await this.docker
          .getImage(id)
          .remove({ noprune: true })
          .then(() => 200)
          .catch((error: { statusCode?: number }) => error.statusCode ?? 500);
        // 409: a child not removed yet, or a container still on it: tried again after the others.
        if (status === 409) left.push(id);
      }
      if (left.length === pending.length) return left.length;
      pending = left;
    }
    return 0;
  }

  /** Full ids of untagged images made by this build: named by its stream, or labelled and made since it began. */
  private async candidates(): Promise<string[]> {
    const labelled = await this.docker
      .listImages({ all: true, filters: { label: Object.entries(this.stageLabels).map(([key, value]) => `${key}=${value}`) } })
      .catch(() => []);
    const ids = new Set([...this.named, ...labelled.map((image) => image.Id)]);
    const found: string[] = [];
    for (const id of ids) {
      const info = await this.docker.getImage(id).inspect().catch(() => null);
      if (!info || Date.parse(info.Created) < this.since - 1_000) continue;
      if ((info.RepoTags ?? []).some((tag) => tag !== "<none>:<none>")) continue;
      found.push(info.Id);
    }
    return found;
  }

  /** The image and every parent it stands on. */
  private async ancestry(id: string): Promise<Set<string>> {
    const chain = new Set<string>();
    let next: string | undefined = id;
    while (next && !chain.has(next)) {
      const info: Docker.ImageInspectInfo | null = await this.docker.getImage(next).inspect().catch(() => null);
      if (!info) break;
      chain.add(info.Id);
      next = info.Parent || undefined;
    }
    return chain;
  }

  /** Whether a container the builder ran for a step (it carries the stage labels) is still there. */
  private async stepContainers(): Promise<boolean> {
    const filters = { label: Object.entries(this.stageLabels).map(([key, value]) => `${key}=${value}`) };
    const containers = await this.docker.listContainers({ all: true, filters }).catch(() => []);
    return containers.some((container) => container.Created * 1000 >= this.since - 1_000);
  }
}
