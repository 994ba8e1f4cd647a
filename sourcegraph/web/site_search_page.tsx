/**
 * The site-wide search page: one pattern over every repository the viewer
 * may see, each repository's results as its own Search tab shows them,
 * with the repositories skipped or not searched yet named, and a link to
 * the next page.
 *
 * @module
 */

import type { CodeLine } from "./code/highlighted_lines.ts";
import type { FanoutSearchResult } from "../service/repository_fanout.ts";
import { encodeFanoutCursor, nextFanoutPosition } from "../render/fanout_search_text.ts";
import { type Html, Layout, type Viewer } from "./layout.tsx";
import { repositoryUrl, siteUrl } from "../render/page_urls.ts";
import { type PageProblem, Problem, SearchResults } from "./repository_pages.tsx";

/** The site-wide search page. */
export function SiteSearchPage(props: {
  viewer: Viewer;
  q: string;
  found: FanoutSearchResult | null;
  /** Per repository result, each file's lines highlighted (null: plain). */
  highlighted?: readonly (readonly (CodeLine[] | null)[])[];
  problem: PageProblem | null;
}): Html {
  const { found } = props;
  const next = found === null ? null : nextFanoutPosition(found);
  return (
    <Layout title={`${props.q} · search`} viewer={props.viewer}>
      <h1>Search</h1>
      <SiteSearchForm q={props.q} />
      {props.problem ? <Problem problem={props.problem} /> : null}
      {found === null ? null : (
        <>
          <p class="muted">
            {found.results.length} of {found.pins.length} repositories searched
            {found.partial ? " (the time limit stopped it)" : ""}
          </p>
          {found.skipped.map((skip) => (
            <p class="notice">
              Skipped <a href={repositoryUrl(skip.repo)}>{skip.repo}</a>: <code>{skip.code}</code>
              {" "}
              {skip.message}
            </p>
          ))}
          {found.results.map((result, r) =>
            result.outcome.fileCount === 0 ? null : (
              <section>
                <h2>
                  <a href={repositoryUrl(result.repo)}>{result.repo}</a>
                </h2>
                <SearchResults
                  repo={result.repo}
                  result={result}
                  highlighted={props.highlighted?.[r]}
                  semantics={{ fixed: false, ignoreCase: false }}
                />
              </section>
            )
          )}
          {next === null ? null : (
            <p>
              <a
                href={`${siteUrl("search")}?${new URLSearchParams({
                  q: props.q,
                  after: encodeFanoutCursor(next),
                })}`}
              >
                More results
              </a>
            </p>
          )}
        </>
      )}
    </Layout>
  );
}

function SiteSearchForm(props: { q: string }): Html {
  return (
    <form class="inline" method="get" action={siteUrl("search")}>
      <input
        type="search"
        name="q"
        value={props.q}
        placeholder="Pattern (RE2)"
        required
        aria-label="Pattern"
      />
      <button type="submit">Search all repositories</button>
    </form>
  );
}
