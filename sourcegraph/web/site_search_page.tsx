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
import {
  type PageProblem,
  Problem,
  type SearchForm,
  SearchOptionFields,
  SearchResults,
} from "./repository_pages.tsx";

/** The site-wide search page. */
export function SiteSearchPage(props: {
  viewer: Viewer;
  /** The form as asked (the Search tab's fields but the version and context). */
  form: SiteSearchForm;
  found: FanoutSearchResult | null;
  /** Per repository result, each file's lines highlighted (null: plain). */
  highlighted?: readonly (readonly (CodeLine[] | null)[])[];
  problem: PageProblem | null;
}): Html {
  const { found, form } = props;
  const next = found === null ? null : nextFanoutPosition(found);
  return (
    <Layout title={`${form.q} · search`} viewer={props.viewer}>
      <h1>Search</h1>
      <SiteSearchFields form={form} />
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
                  semantics={{ fixed: form.fixed, ignoreCase: form.ignoreCase }}
                />
              </section>
            )
          )}
          {next === null ? null : <MoreResults form={form} after={encodeFanoutCursor(next)} />}
        </>
      )}
    </Layout>
  );
}

// The next page of the search, with the same options.
function MoreResults(props: { form: SiteSearchForm; after: string }): Html {
  const { form } = props;
  const query = new URLSearchParams({
    q: form.q,
    ...(form.fixed ? { fixed: "1" } : {}),
    ...(form.ignoreCase ? { case: "1" } : {}),
    ...(form.glob ? { glob: form.glob } : {}),
    after: props.after,
  });
  return (
    <p>
      <a href={`${siteUrl("search")}?${query}`}>More results</a>
    </p>
  );
}

/** What the site-wide search form holds. */
export type SiteSearchForm = Omit<SearchForm, "rev" | "context">;

// The Search tab's fields (same names) but the version: every repository is searched at its default branch.
function SiteSearchFields(props: { form: SiteSearchForm }): Html {
  const { form } = props;
  return (
    <form class="inline" method="get" action={siteUrl("search")}>
      <input
        type="search"
        name="q"
        value={form.q}
        placeholder="Pattern (RE2)"
        required
        aria-label="Pattern"
      />
      <SearchOptionFields form={form} />
      <button type="submit">Search all repositories</button>
    </form>
  );
}
