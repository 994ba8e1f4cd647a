/**
 * The repository tabs: Files (a directory at a version, with a version
 * picker), Versions (retained commits with date and subject), Search
 * (results link to exact lines at the searched SHA) and Plugins (the
 * discovery catalog at a version, static information only).
 *
 * @module
 */

import { inertLine } from "./commit_text.ts";
import { type Readme, ReadmeSection } from "./readme_section.tsx";
import { CodeText } from "./code/code_line.tsx";
import type { CodeLine } from "./code/highlighted_lines.ts";
import type { PluginCatalog } from "../plugins/plugin_discovery.ts";
import type { DirectoryListing, SearchResult } from "../service/repository_reads.ts";
import {
  Breadcrumbs,
  formatCommitTime,
  type Html,
  Layout,
  ShortSha,
  Tabs,
  type Viewer,
} from "./layout.tsx";
import {
  blobUrl,
  commitsUrl,
  repositoryUrl,
  siteUrl,
  tabUrl,
  treeUrl,
} from "../render/page_urls.ts";
import type { LastCommit } from "../git/last_commits.ts";
import { CommitRows } from "./commits_page.tsx";
import { entryRows } from "./entry_rows.ts";
import type { FileHistory } from "../read/file_history.ts";
import { type ResultRow, resultRows } from "./search_paging.ts";

/** A retained version as the pickers show it. */
export interface VersionChoice {
  commit: string;
  committerTime: number | null;
}

/** A problem to show in place of a result. */
export interface PageProblem {
  code: string;
  message: string;
}

/** A problem shown in place of a result. */
export function Problem(props: { problem: PageProblem }): Html {
  return (
    <p class="notice error">
      <code>{props.problem.code}</code> {props.problem.message}
    </p>
  );
}

/** A version picker: a GET form landing on `action` with `rev` (and `keep` fields). */
function VersionPicker(
  props: {
    action: string;
    versions: VersionChoice[];
    current: string;
    keep?: Record<string, string>;
  },
): Html {
  return (
    <form class="inline" method="get" action={props.action}>
      <label>
        Version{" "}
        <select name="rev">
          {props.versions.map((version) => (
            <option value={version.commit} selected={version.commit === props.current}>
              {version.commit.slice(0, 12)} · {formatCommitTime(version.committerTime)}
            </option>
          ))}
          {props.versions.some((version) => version.commit === props.current)
            ? null
            : <option value={props.current} selected>{props.current.slice(0, 12)}</option>}
        </select>
      </label>
      {Object.entries(props.keep ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit">Go</button>
    </form>
  );
}

/** A form's version picker: the default branch ("") or a retained version. */
export function VersionSelect(props: { versions: VersionChoice[]; selected: string }): Html {
  return (
    <select name="rev" aria-label="Version">
      <option value="" selected={props.selected === ""}>default branch</option>
      {props.versions.map((version) => (
        <option value={version.commit} selected={version.commit === props.selected}>
          {version.commit.slice(0, 12)} · {formatCommitTime(version.committerTime)}
        </option>
      ))}
    </select>
  );
}

/** The Files tab. */
export function FilesPage(
  props: {
    viewer: Viewer;
    listing: DirectoryListing;
    versions: VersionChoice[];
    /** The folder's README, shown below the listing. */
    readme?: Readme | null;
    /** The latest commit of each entry by name (null: not shown). */
    lastCommits?: Record<string, LastCommit> | null;
  },
): Html {
  const { listing } = props;
  return (
    <Layout
      title={listing.path ? `${listing.path} · ${listing.repo}` : listing.repo}
      viewer={props.viewer}
    >
      <h1>{listing.repo}</h1>
      {props.viewer.csrf === null
        ? null
        : (
          <form class="inline" method="post" action={siteUrl("sync")}>
            <input type="hidden" name="csrf" value={props.viewer.csrf} />
            <input type="hidden" name="repo" value={listing.repo} />
            <button type="submit">Sync now</button>
          </form>
        )}
      <Tabs repo={listing.repo} current="files" rev={listing.commit} />
      <VersionPicker
        action={repositoryUrl(listing.repo)}
        versions={props.versions}
        current={listing.commit}
        keep={listing.path ? { dir: listing.path } : {}}
      />
      <p class="muted">
        At <ShortSha sha={listing.commit} /> ·{" "}
        <a href={commitsUrl(listing.repo, { rev: listing.commit, path: listing.path })}>History</a>
      </p>
      <Breadcrumbs repo={listing.repo} commit={listing.commit} path={listing.path} />
      <Entries listing={listing} lastCommits={props.lastCommits ?? null} />
      {props.readme ? <ReadmeSection readme={props.readme} /> : null}
    </Layout>
  );
}

// A folder's entries, folders first, each with its latest commit when known,
// and a link to the next page of them.
function Entries(
  props: { listing: DirectoryListing; lastCommits: Record<string, LastCommit> | null },
): Html {
  const { listing } = props;
  return (
    <>
      <table class="entries">
        <tbody>{entryRows(listing, props.lastCommits)}</tbody>
      </table>
      {listing.nextCursor
        ? (
          <p>
            <a
              href={`${treeUrl(listing.repo, { rev: listing.commit, dir: listing.path })}?after=${
                encodeURIComponent(listing.nextCursor)
              }`}
            >
              More entries
            </a>
          </p>
        )
        : null}
    </>
  );
}

/** The Versions tab. */
export function VersionsPage(props: {
  viewer: Viewer;
  repo: string;
  total: number;
  skip: number;
  versions: { commit: string; committerTime: number | null; subject: string | null }[];
  /** The version the viewer came from, marked in the list. */
  current?: string;
  /** The default branch's recent commits (null: not shown). */
  recent?: FileHistory | null;
  /** Every retained version, marked among the recent commits. */
  retained?: ReadonlySet<string>;
  /** Why the recent commits are not shown. */
  problem?: PageProblem | null;
}): Html {
  return (
    <Layout title={`Versions · ${props.repo}`} viewer={props.viewer}>
      <h1>{props.repo}</h1>
      <Tabs repo={props.repo} current="versions" />
      {props.problem ? <Problem problem={props.problem} /> : null}
      {props.recent
        ? <RecentCommits repo={props.repo} recent={props.recent} retained={props.retained} />
        : null}
      <h2>Retained versions</h2>
      <p class="muted">{props.total} retained version(s)</p>
      <RetainedVersions repo={props.repo} versions={props.versions} current={props.current} />
      {props.skip + props.versions.length < props.total
        ? (
          <p>
            <a
              href={tabUrl(props.repo, "versions", {
                skip: String(props.skip + props.versions.length),
              })}
            >
              Older versions
            </a>
          </p>
        )
        : null}
    </Layout>
  );
}

// The retained versions of one page, the one the viewer came from marked.
function RetainedVersions(props: {
  repo: string;
  versions: { commit: string; committerTime: number | null; subject: string | null }[];
  current?: string;
}): Html {
  return (
    <table>
      <thead>
        <tr>
          <th>Commit</th>
          <th>Committed</th>
          <th>Subject</th>
        </tr>
      </thead>
      <tbody>
        {props.versions.map((version) => (
          <tr>
            <td>
              <a href={treeUrl(props.repo, { rev: version.commit })}>
                <ShortSha sha={version.commit} />
              </a>
            </td>
            <td>{formatCommitTime(version.committerTime)}</td>
            <td>
              {version.subject === null
                ? <span class="muted">unknown</span>
                : inertLine(version.subject)}
              {version.commit === props.current ? <span class="badge">viewing</span> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

// The branch's recent commits, newest first, the retained versions marked.
function RecentCommits(
  props: { repo: string; recent: FileHistory; retained?: ReadonlySet<string> },
): Html {
  const { repo, recent } = props;
  return (
    <>
      <h2>Recent commits</h2>
      <p class="muted">
        The default branch from <ShortSha sha={recent.commit} />, newest first
        {recent.scope === null ? null : <>, within the path groups: {recent.scope.join(", ")}</>}
      </p>
      <CommitRows repo={repo} commits={recent.commits} marked={props.retained} />
      {recent.hasMore
        ? (
          <p>
            <a href={commitsUrl(repo, { rev: recent.commit })}>All commits</a>
          </p>
        )
        : null}
    </>
  );
}

/** What the search form holds. */
export interface SearchForm {
  q: string;
  rev: string;
  fixed: boolean;
  ignoreCase: boolean;
  glob: string;
  /** Lines shown around each match (0 to `MAX_PAGE_CONTEXT`). */
  context: number;
}

/** Most lines of context the Search tab shows around a match. */
export const MAX_PAGE_CONTEXT = 3;
/** The lines of context the Search tab shows when none are asked for. */
export const DEFAULT_PAGE_CONTEXT = 1;

// A page cut short (by its own size or the search's caps) continues after
// its last match, at the same commit, with the same options.
function NextPage(
  props: { repo: string; form: SearchForm; commit: string; next: string | null },
): Html | null {
  const { form, next } = props;
  if (next === null) return null;
  return (
    <p>
      <a
        class="next-page"
        href={tabUrl(props.repo, "search", {
          q: form.q,
          rev: props.commit,
          fixed: form.fixed ? "1" : undefined,
          case: form.ignoreCase ? "1" : undefined,
          glob: form.glob,
          context: String(form.context),
          after: next,
        })}
      >
        Next page
      </a>
    </p>
  );
}

/** The Search tab. */
export function SearchPage(props: {
  viewer: Viewer;
  repo: string;
  form: SearchForm;
  versions: VersionChoice[];
  /** The page of results shown (cut to the page's size). */
  result: SearchResult | null;
  /** The cursor of the next page (null: this is the last). */
  next?: string | null;
  /** Each result file's lines highlighted (null: plain). */
  highlighted?: readonly (CodeLine[] | null)[];
  problem: PageProblem | null;
}): Html {
  const { form, result } = props;
  return (
    <Layout
      title={form.q ? `${form.q} · ${props.repo}` : `Search · ${props.repo}`}
      viewer={props.viewer}
    >
      <h1>{props.repo}</h1>
      <Tabs repo={props.repo} current="search" rev={form.rev || undefined} />
      <SearchFields repo={props.repo} form={form} versions={props.versions} />
      {props.problem ? <Problem problem={props.problem} /> : null}
      {result === null ? null : (
        <SearchResults
          repo={props.repo}
          result={result}
          highlighted={props.highlighted}
          semantics={{ fixed: form.fixed, ignoreCase: form.ignoreCase }}
        />
      )}
      {result === null ? null : (
        <NextPage
          repo={props.repo}
          form={form}
          commit={result.commit}
          next={props.next ?? null}
        />
      )}
    </Layout>
  );
}

/** The globs and the two switches of a search form (the Search tab's and the site search's). */
export function SearchOptionFields(
  props: { form: Pick<SearchForm, "glob" | "fixed" | "ignoreCase"> },
): Html {
  const { form } = props;
  return (
    <>
      <input
        type="text"
        name="glob"
        value={form.glob}
        placeholder="glob, e.g. *.ts !vendor/**"
        aria-label="Globs"
      />
      <label>
        <input type="checkbox" name="fixed" value="1" checked={form.fixed} /> fixed string
      </label>
      <label>
        <input type="checkbox" name="case" value="1" checked={form.ignoreCase} /> ignore case
      </label>
    </>
  );
}

// The search form: pattern, version, globs and the two switches.
function SearchFields(
  props: { repo: string; form: SearchForm; versions: VersionChoice[] },
): Html {
  const { form } = props;
  return (
    <form class="inline" method="get" action={tabUrl(props.repo, "search")}>
      <input
        type="search"
        name="q"
        value={form.q}
        placeholder="Pattern (RE2)"
        required
        aria-label="Pattern"
      />
      <VersionSelect versions={props.versions} selected={form.rev} />
      <SearchOptionFields form={form} />
      <label>
        context{" "}
        <select name="context" aria-label="Lines of context">
          {Array.from(
            { length: MAX_PAGE_CONTEXT + 1 },
            (_, n) => <option key={n} value={String(n)} selected={n === form.context}>{n}</option>,
          )}
        </select>
      </label>
      <button type="submit">Search</button>
    </form>
  );
}

/** What a search found: the counts, then each file's matching lines. */
export function SearchResults(props: {
  repo: string;
  result: SearchResult;
  /** Each file's lines (`resultRows`' lines) highlighted, in the order of the files (null: plain). */
  highlighted?: readonly (CodeLine[] | null)[];
  /** How the pattern was matched (said above the results). */
  semantics: { fixed: boolean; ignoreCase: boolean };
}): Html {
  const { result, semantics } = props;
  return (
    <>
      <p class="muted">
        {semantics.fixed ? "Fixed string" : "RE2 regex"}, per line,{" "}
        {semantics.ignoreCase ? "ignoring case" : "case-sensitive"}: {result.outcome.matchCount}
        {" "}
        match(es) in {result.outcome.fileCount} file(s) at <ShortSha sha={result.commit} />
        {result.outcome.truncated ? " (capped: more may match)" : ""}
        {result.outcome.index === "not_ready" ? " · index still building" : ""}
        {result.outcome.index === "scan" ? " · no trigram in the pattern: every file was read" : ""}
      </p>
      {result.outcome.files.map((file, f) => (
        <section>
          <p class="match-file">
            <a href={blobUrl(props.repo, { rev: result.commit, path: file.path })}>
              {file.path}
            </a>{" "}
            <span class="muted">{file.matchCount} match(es)</span>
          </p>
          <table class="code">
            <tbody>
              {numbered(resultRows(file, result.context?.get(file.path))).map(({ row, i }) => (
                <ResultRowView
                  row={row}
                  href={(start) =>
                    blobUrl(props.repo, { rev: result.commit, path: file.path, start })}
                  highlighted={props.highlighted?.[f]?.[i]}
                />
              ))}
            </tbody>
          </table>
        </section>
      ))}
    </>
  );
}

// A match (marked), a context line (dimmed) or the separator between lines apart.
function ResultRowView(
  props: { row: ResultRow; href: (line: number) => string; highlighted?: CodeLine | null },
): Html {
  const { row } = props;
  if (row.kind === "gap") {
    return (
      <tr class="gap">
        <td class="num">⋯</td>
        <td></td>
      </tr>
    );
  }
  return (
    <tr class={row.match ? undefined : "context"}>
      <td class="num">
        <a href={props.href(row.number)}>{row.number}</a>
      </td>
      <td>
        <CodeText text={row.text} highlighted={props.highlighted} ranges={row.ranges} />
      </td>
    </tr>
  );
}

// Each row with the index of its line among the file's lines (gaps have none).
function numbered<T extends { kind: string }>(rows: T[]): { row: T; i: number }[] {
  let i = 0;
  return rows.map((row) => ({ row, i: row.kind === "gap" ? -1 : i++ }));
}

/** The Plugins tab. */
export function PluginsPage(props: {
  viewer: Viewer;
  repo: string;
  versions: VersionChoice[];
  catalog: PluginCatalog | null;
  problem: PageProblem | null;
}): Html {
  const { catalog } = props;
  return (
    <Layout title={`Plugins · ${props.repo}`} viewer={props.viewer}>
      <h1>{props.repo}</h1>
      <Tabs repo={props.repo} current="plugins" rev={catalog?.commit} />
      {catalog
        ? (
          <VersionPicker
            action={tabUrl(props.repo, "plugins")}
            versions={props.versions}
            current={catalog.commit}
          />
        )
        : null}
      <p class="muted">
        What discovery finds in the repository's committed <code>*.sourcegraph.wasm</code>{" "}
        files, read statically: no plugin runs to show this page.
      </p>
      {props.problem ? <Problem problem={props.problem} /> : null}
      {catalog === null ? null : (
        <>
          <p class="muted">
            At <ShortSha sha={catalog.commit} />: {catalog.plugins.length} plugin(s)
          </p>
          {(catalog.issues ?? []).map((issue) => <Problem key={issue.code} problem={issue} />)}
          {catalog.plugins.length === 0
            ? null
            : <PluginTable repo={props.repo} catalog={catalog} />}
        </>
      )}
    </Layout>
  );
}

// The discovered plugins, one row each, with their metadata and issues.
function PluginTable(props: { repo: string; catalog: PluginCatalog }): Html {
  const { catalog } = props;
  return (
    <table>
      <thead>
        <tr>
          <th>Name</th>
          <th>Title and description</th>
          <th>Version</th>
          <th>Operations</th>
          <th>Default enabled</th>
          <th>Folder</th>
          <th>Issues</th>
        </tr>
      </thead>
      <tbody>
        {catalog.plugins.map((plugin) => (
          <tr>
            <td>
              <a href={blobUrl(props.repo, { rev: catalog.commit, path: plugin.path })}>
                <code>{plugin.name}</code>
              </a>
            </td>
            <td>
              <strong>{plugin.metadata.title ?? ""}</strong>
              <div>{plugin.metadata.description ?? ""}</div>
            </td>
            <td>{plugin.metadata.version ?? ""}</td>
            <td>{(plugin.metadata.operations ?? []).join(", ")}</td>
            <td>{plugin.metadata.defaultEnabled === true ? "yes" : "no"}</td>
            <td>
              <code>{plugin.root === "" ? "/" : plugin.root}</code>
            </td>
            <td>
              {(plugin.issues ?? []).map((issue) => (
                <div>
                  <code>{issue.code}</code> {issue.message}
                </div>
              ))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
