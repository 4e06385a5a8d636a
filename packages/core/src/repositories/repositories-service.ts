import { inject, injectable } from "tsyringe";
import { notFound, unprocessable } from "../errors.js";
import { REPO_HOSTS, type RepoAccess, type RepoFacts, type RepoHost, type RepoLink } from "../ports/repo-host.js";

export interface ResolvedRepository {
  host: RepoHost;
  link: RepoLink;
  facts: RepoFacts;
}

/** Links and facts across every configured repo host. */
@injectable()
export class RepositoriesService {
  constructor(@inject(REPO_HOSTS) private readonly hosts: RepoHost[]) {}

  /** The host that understands `link`, and what it understood, or `422 invalid_repo_url`. */
  parseLink(link: string): { host: RepoHost; link: RepoLink } {
    for (const host of this.hosts) {
      const parsed = host.parseLink(link);
      if (parsed) return { host, link: parsed };
    }
    // The forms this server's hosts understand: a GitHub Enterprise server suggests its own.
    const examples = this.hosts.flatMap((host) => (host.exampleLink ? [host.exampleLink] : []));
    const hint = examples.length > 0 ? ` Use a link like ${examples.join(" or ")}.` : "";
    throw unprocessable(`"${link.slice(0, 200)}" is not a link to a repository this server knows.${hint}`, "invalid_repo_url");
  }

  /** Facts of the linked repository, or `404 repo_not_found` when it does not exist or is not visible. */
  async resolve(link: string, access?: RepoAccess): Promise<ResolvedRepository> {
    const parsed = this.parseLink(link);
    const facts = await parsed.host.getRepository(parsed.link, access);
    if (!facts) {
      throw notFound(
        `The repository ${parsed.link.url} does not exist, or it is private and this server cannot see it.`,
        "repo_not_found",
      );
    }
    return { ...parsed, facts };
  }

  async readme(resolved: ResolvedRepository, access?: RepoAccess): Promise<string | null> {
    return resolved.host.getReadme(resolved.link, access);
  }
}
