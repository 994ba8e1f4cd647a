/**
 * The home page: the repositories the viewer may see, and a search box.
 *
 * @module
 */

import type { RepositorySummary } from "../service/repository_summaries.ts";
import { formatTime, type Html, Layout, ShortSha, type Viewer } from "./layout.tsx";
import { homeUrl, repositoryUrl, siteUrl } from "../render/page_urls.ts";

/** The home page. */
export function HomePage(
  props: { viewer: Viewer; repositories: RepositorySummary[]; nextCursor: string | null },
): Html {
  return (
    <Layout title="Repositories" viewer={props.viewer}>
      <h1>Repositories</h1>
      {props.repositories.length === 0
        ? (
          <p class="notice">
            No repository to show.{" "}
            {props.viewer.label === null ? "Private repositories appear after signing in." : ""}
          </p>
        )
        : (
          <>
            <form class="inline" method="get" action={siteUrl("search")}>
              <select name="repo" aria-label="Repository">
                <option value="">all repositories</option>
                {props.repositories.map((repo) => (
                  <option key={repo.name} value={repo.name}>{repo.name}</option>
                ))}
              </select>
              <input type="search" name="q" placeholder="Search code (RE2)" required />
              <button type="submit">Search</button>
            </form>
            <table class="repositories">
              <thead>
                <tr>
                  <th>Repository</th>
                  <th>Access</th>
                  <th>Default branch</th>
                  <th>Head</th>
                  <th>Last sync</th>
                </tr>
              </thead>
              <tbody>
                {props.repositories.map((repo) => <RepositoryRow key={repo.name} repo={repo} />)}
              </tbody>
            </table>
            {props.nextCursor === null ? null : (
              <p>
                <a href={`${homeUrl()}?after=${encodeURIComponent(props.nextCursor)}`}>More</a>
              </p>
            )}
          </>
        )}
    </Layout>
  );
}

function RepositoryRow(props: { repo: RepositorySummary }): Html {
  const { repo } = props;
  const head = repo.defaultBranch === null ? undefined : repo.heads[repo.defaultBranch];
  return (
    <tr>
      <td>
        <a href={repositoryUrl(repo.name)}>{repo.name}</a>
      </td>
      <td data-label="Access">
        <span class="badge">{repo.publicRead ? "public" : "private"}</span>
      </td>
      <td data-label="Default branch">{repo.defaultBranch ?? <span class="muted">none</span>}</td>
      <td data-label="Head">
        {head ? <ShortSha sha={head} /> : <span class="muted">not synced</span>}
      </td>
      <td data-label="Last sync">
        {formatTime(repo.lastSyncAt)} <span class="badge">{repo.state}</span>
      </td>
    </tr>
  );
}
