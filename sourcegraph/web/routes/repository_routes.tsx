/**
 * The pages of repositories: the home page's list and its search box, then
 * under `/<repo>/` the files at a version, one file, the versions, search, symbols
 * and plugins tabs. A branch in a path redirects to the SHA it resolves to,
 * so every page is pinned; a repository the viewer may not see answers
 * exactly as a missing one.
 *
 * @module
 */

import { Hono } from "hono";
import type { Context } from "hono";
import type { Caller } from "../../access/caller.ts";
import { SourcegraphError } from "../../errors.ts";
import type { RepositoryService } from "../../service/repository_service.ts";
import { BlobPage, type BlobView, blobView, withCode } from "../blob_page.tsx";
import type { FileOutline } from "../../service/repository_symbols.ts";
import { BlamePage } from "../blame_page.tsx";
import { CommitPage, patchCode } from "../commit_page.tsx";
import { COMMITS_PER_PAGE, CommitsPage } from "../commits_page.tsx";
import { highlightFileLines } from "../code/code_highlighting.ts";
import { READ_MAX_BYTES, READ_MAX_LINES } from "../../read/file_read.ts";
import { type Readme, readmeOf, readmePath } from "../readme_section.tsx";
import { type DirectoryListing, nearestPathsOfHint } from "../../service/repository_reads.ts";
import { highlightResultLines } from "../code/code_highlighting.ts";
import type { CodeHighlighter } from "../code/highlighter.ts";
import type { DocumentRenderer } from "../code/markdown_renderer.ts";
import type { CodeLine } from "../code/highlighted_lines.ts";
import { resultRows, searchPage } from "../search_paging.ts";
import type { SearchResult } from "../../service/repository_reads.ts";
import { rawHeaders } from "../raw_response.ts";
import { type SymbolsForm, SymbolsPage } from "../symbols_page.tsx";
import { type SiteSearchForm, SiteSearchPage } from "../site_search_page.tsx";
import { decodeFanoutCursor } from "../../render/fanout_search_text.ts";
import type { FanoutCharge } from "../../service/repository_fanout.ts";
import { SYMBOL_KINDS, type SymbolKind } from "../../symbols/defined_symbol.ts";
import { decodeSymbolCursor } from "../../render/symbols_json.ts";
import {
  decodeHistoryCursor,
  decodeSearchCursor,
  type SearchCursor,
} from "../../render/search_cursor.ts";
import { HomePage } from "../home_page.tsx";
import { ProblemPage } from "../sign_in_page.tsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { notFoundPage, page, type PageEnv, redirect } from "../page_responses.tsx";
import {
  definitionView,
  positionOf,
  referencesView,
  requiredPosition,
} from "./navigation_routes.tsx";
import {
  blameUrl,
  blobUrl,
  commitsUrl,
  definitionUrl,
  isFullSha,
  parseRepositoryPath,
  pathSegments,
  plainSegments,
  rawUrl,
  referencesUrl,
  type RepositoryRoute,
  tabUrl,
  treeUrl,
} from "../../render/page_urls.ts";
import {
  DEFAULT_PAGE_CONTEXT,
  FilesPage,
  MAX_PAGE_CONTEXT,
  type PageProblem,
  PluginsPage,
  type SearchForm,
  SearchPage,
  VersionsPage,
} from "../repository_pages.tsx";

/** What the repository routes are built with. */
export interface RepositoryRouteOptions {
  /** The HTTP status of an error code. */
  status: (code: string) => number;
  /** How the search across repositories pays for them. */
  fanoutCharge: (c: Context) => FanoutCharge;
  /** What file pages and search results are highlighted with (none: plain text). */
  highlighter?: CodeHighlighter;
  /** What Markdown files and READMEs are rendered with (none: shown as source). */
  markdown?: DocumentRenderer;
}

type At = {
  service: RepositoryService;
  status: (code: string) => number;
  fanoutCharge: (c: Context) => FanoutCharge;
  highlighter?: CodeHighlighter;
  markdown?: DocumentRenderer;
};

/** The home page and every repository page, to mount at the pages' root (last: it ends in `/*`). */
export function repositoryRoutes(
  service: RepositoryService,
  options: RepositoryRouteOptions,
): Hono<PageEnv> {
  const at: At = { service, ...options };
  const app = new Hono<PageEnv>();
  app.get("/-/search", async (c) => {
    const repo = c.req.query("repo") ?? "";
    if (repo === "") return await siteSearch(c, at);
    // The home page's search box with a repository: on to its Search tab.
    const segments = plainSegments(repo.split("/"));
    const route = segments === null ? null : parseRepositoryPath(segments);
    if (route?.page !== "repository") throw new SourcegraphError("NOT_FOUND", "no such repository");
    return redirect(c, tabUrl(route.repo, "search", { q: c.req.query("q") ?? "" }), 303);
  });
  app.get("/", (c) => {
    const listed = service.repositories(c.get("caller"), { after: c.req.query("after") });
    return page(
      c,
      <HomePage
        viewer={c.get("viewer")}
        repositories={listed.repositories}
        nextCursor={listed.nextCursor}
      />,
    );
  });
  app.get("/*", async (c) => {
    const segments = pathSegments(c.req.path);
    const route = segments === null ? null : parseRepositoryPath(segments);
    if (route === null) return await notFoundPage(c);
    return await repositoryPage(c, route, at);
  });
  return app;
}

// The page a repository path names.
async function repositoryPage(
  c: Context<PageEnv>,
  route: RepositoryRoute,
  at: At,
): Promise<Response> {
  switch (route.page) {
    case "plugin_blob":
      at.service.resolve(c.get("caller"), { repo: route.repo, revision: route.sha });
      return redirect(c, blobUrl(route.repo, { rev: route.sha, path: route.path }), 301);
    case "repository":
      return await repositoryHome(c, route, at);
    case "tree":
    case "blob":
      return await pinnedPage(c, route, at);
    case "raw":
      return await rawFile(c, route, at);
    case "blame":
      return await blamePage(c, route, at);
    case "commit":
      return await commitPage(c, route, at);
    case "commits":
      return await commitsPage(c, route, at);
    case "definition":
    case "references":
      return await navigationPage(c, route, at);
    case "versions":
      return await versionsTab(c, route, at);
    case "search":
      return await searchTab(c, route, at);
    case "symbols":
      return await symbolsTab(c, route, at);
    case "plugins":
      return await pluginsTab(c, route, at);
  }
}

// The repository's files at its default branch head; `?rev=` (and `dir=`)
// from the version picker redirect to the pinned tree.
async function repositoryHome(
  c: Context<PageEnv>,
  route: { repo: string },
  at: At,
): Promise<Response> {
  const { repo } = route;
  const rev = c.req.query("rev");
  const dir = c.req.query("dir") ?? "";
  if (rev !== undefined && rev !== "") {
    const { commit } = at.service.resolve(c.get("caller"), { repo, revision: rev });
    if (dir !== "" && plainSegments(dir.split("/")) === null) {
      throw new SourcegraphError("NOT_FOUND", "no such folder");
    }
    return redirect(c, treeUrl(repo, { rev: commit, dir }), 303);
  }
  const { commit } = at.service.resolve(c.get("caller"), { repo });
  return await filesPage(c, { service: at.service, markdown: at.markdown, repo, commit, dir: "" });
}

// A tree or blob path: pinned to a SHA (a branch redirects to its SHA).
async function pinnedPage(
  c: Context<PageEnv>,
  route: RepositoryRoute & { page: "tree" | "blob" },
  at: At,
): Promise<Response> {
  const { repo } = route;
  const pinned = pinnedRevision(at.service, c.get("caller"), { repo, rest: route.rest });
  const path = pinned.rest.join("/");
  if (!isFullSha(pinned.rev)) {
    const url = route.page === "tree"
      ? treeUrl(repo, { rev: pinned.commit, dir: path })
      : blobUrl(repo, { rev: pinned.commit, path });
    return redirect(c, `${url}${new URL(c.req.url).search}`, 302);
  }
  // A name's link on the file page (`?line=L&column=C`, relative to keep the page small).
  const position = route.page === "blob"
    ? positionOf({ line: c.req.query("line"), column: c.req.query("column") }, {
      rev: pinned.commit,
      path,
    })
    : null;
  if (position !== null && path !== "") return redirect(c, definitionUrl(repo, position), 302);
  if (route.page === "tree") {
    return await filesPage(c, {
      service: at.service,
      markdown: at.markdown,
      repo,
      commit: pinned.commit,
      dir: path,
    });
  }
  return await blobPage(c, { ...at, repo, commit: pinned.commit, path });
}

// A file's bytes as committed: text as `text/plain`, anything else as a
// download; sandboxed, never sniffed (a branch redirects to its SHA).
async function rawFile(
  c: Context<PageEnv>,
  route: { repo: string; rest: string[] },
  at: At,
): Promise<Response> {
  const { repo } = route;
  const pinned = pinnedRevision(at.service, c.get("caller"), { repo, rest: route.rest });
  const path = pinned.rest.join("/");
  if (!isFullSha(pinned.rev)) return redirect(c, rawUrl(repo, { rev: pinned.commit, path }), 302);
  const file = await at.service.calls.readRaw(c.get("caller"), {
    repo,
    path,
    revision: pinned.commit,
    held: true,
  });
  const bytes = Uint8Array.fromBase64(file.content);
  for (const [name, value] of Object.entries(rawHeaders(path, bytes))) c.header(name, value);
  return c.body(bytes, 200);
}

// The definition or references view of a name at a position; a branch redirects to its SHA.
async function navigationPage(
  c: Context<PageEnv>,
  route: RepositoryRoute & { page: "definition" | "references" },
  at: At,
): Promise<Response> {
  const { repo } = route;
  const pinned = pinnedRevision(at.service, c.get("caller"), { repo, rest: route.rest });
  const path = pinned.rest.join("/");
  if (path === "") throw new SourcegraphError("NOT_FOUND", "no such page");
  if (!isFullSha(pinned.rev)) {
    // The query is rebuilt from what the view reads, never copied.
    const position = requiredPosition(c, { rev: pinned.commit, path });
    const url = route.page === "definition"
      ? definitionUrl(repo, position)
      : referencesUrl(repo, { ...position, after: c.req.query("after") });
    return redirect(c, url, 302);
  }
  const view = route.page === "definition" ? definitionView : referencesView;
  return await view(c, { service: at.service, repo, commit: pinned.commit, path });
}

// Room for a blame page's 500 lines of up to the read cap's bytes, whatever the path.
const BLAME_PAGE_BYTES = 2 * READ_MAX_BYTES;

// Who last changed each line of a page of a file (`?start=…&end=…`, up to
// 500 lines, as the blame tool blames them); a branch redirects to its SHA,
// a folder to its tree, and a file that cannot be blamed is said on the page.
async function blamePage(
  c: Context<PageEnv>,
  route: { repo: string; rest: string[] },
  at: At,
): Promise<Response> {
  const { repo } = route;
  const pinned = pinnedRevision(at.service, c.get("caller"), { repo, rest: route.rest });
  const path = pinned.rest.join("/");
  if (path === "") return redirect(c, treeUrl(repo, { rev: pinned.commit }), 302);
  if (!isFullSha(pinned.rev)) {
    return redirect(
      c,
      `${blameUrl(repo, { rev: pinned.commit, path })}${new URL(c.req.url).search}`,
      302,
    );
  }
  const start = lineNumber(c.req.query("start")) ?? 1;
  const end = Math.min(lineNumber(c.req.query("end")) ?? Infinity, start + READ_MAX_LINES - 1);
  const { value: blame, problem } = await orProblem(
    () =>
      at.service.calls.blame(c.get("caller"), {
        repo,
        path,
        revision: pinned.commit,
        held: true,
        startLine: start,
        endLine: end,
        maxBytes: BLAME_PAGE_BYTES,
      }),
    at.status,
  );
  // A folder, a symbolic link or a submodule: its file page says what it is.
  if (problem?.code === "NOT_A_FILE") {
    return redirect(c, blobUrl(repo, { rev: pinned.commit, path }), 302);
  }
  const highlighted = blame === null ? null : await highlightFileLines(at.highlighter, {
    path,
    lines: blame.lines.map((line) => line.text),
  });
  return await page(
    c,
    <BlamePage
      viewer={c.get("viewer")}
      view={{ repo, commit: pinned.commit, path, blame, highlighted, problem }}
    />,
  );
}

// A positive line number from a query parameter (absent or malformed: undefined).
function lineNumber(text: string | undefined): number | undefined {
  const number = Number(text);
  return text !== undefined && Number.isSafeInteger(number) && number >= 1 ? number : undefined;
}

// One commit: its message, parents, changed files and their diffs, highlighted.
async function commitPage(
  c: Context<PageEnv>,
  route: { repo: string; sha: string },
  at: At,
): Promise<Response> {
  const detail = await at.service.calls.commit(c.get("caller"), {
    repo: route.repo,
    commit: route.sha,
  });
  const shown = detail.files.map((file) => ({
    path: file.path,
    lines: file.patch?.lines ? patchCode(file.patch.lines) : [],
  }));
  const highlighted = await highlightResultLines(at.highlighter, shown);
  return await page(
    c,
    <CommitPage viewer={c.get("viewer")} detail={detail} highlighted={highlighted} />,
  );
}

// The commits of a file, a folder or the whole version, newest first, paged
// by the history's cursor; a branch redirects to its SHA.
async function commitsPage(
  c: Context<PageEnv>,
  route: { repo: string; rest: string[] },
  at: At,
): Promise<Response> {
  const { repo } = route;
  const pinned = pinnedRevision(at.service, c.get("caller"), { repo, rest: route.rest });
  const path = pinned.rest.join("/");
  const after = c.req.query("after");
  if (!isFullSha(pinned.rev)) {
    return redirect(c, commitsUrl(repo, { rev: pinned.commit, path, after }), 302);
  }
  const position = after
    ? decodeHistoryCursor(after, { repo, path: path || null, lines: null })
    : undefined;
  const history = await at.service.calls.history(c.get("caller"), {
    repo,
    revision: pinned.commit,
    held: true,
    path: path || undefined,
    first: COMMITS_PER_PAGE,
    after: position,
  });
  return await page(c, <CommitsPage viewer={c.get("viewer")} repo={repo} history={history} />);
}

async function versionsTab(
  c: Context<PageEnv>,
  route: { repo: string },
  at: At,
): Promise<Response> {
  const skip = Math.max(0, Math.min(Number(c.req.query("skip") ?? 0) || 0, 1_000_000));
  const history = await at.service.calls.versionHistory(c.get("caller"), {
    repo: route.repo,
    first: 100,
    skip,
  });
  // The default branch's recent commits (the first page only), the retained ones marked.
  const { value: recent, problem } = skip > 0 ? { value: null, problem: null } : await orProblem(
    () => at.service.calls.history(c.get("caller"), { repo: route.repo, first: 30 }),
    at.status,
  );
  return page(
    c,
    <VersionsPage
      viewer={c.get("viewer")}
      repo={route.repo}
      total={history.total}
      skip={skip}
      versions={history.versions}
      current={c.req.query("rev")}
      recent={recent}
      retained={new Set(
        at.service.retainedVersions(c.get("caller"), { repo: route.repo }).map((v) => v.commit),
      )}
      problem={problem}
    />,
  );
}

async function searchTab(
  c: Context<PageEnv>,
  route: { repo: string },
  at: At,
): Promise<Response> {
  const caller = c.get("caller");
  const form = searchFormOf(c);
  const versions = at.service.retainedVersions(caller, { repo: route.repo });
  const after = c.req.query("after");
  const show = (
    shown: { result: SearchResult | null; next?: string | null; problem: PageProblem | null },
    highlighted?: (CodeLine[] | null)[],
    status?: ContentfulStatusCode,
  ): Promise<Response> =>
    page(
      c,
      <SearchPage
        viewer={c.get("viewer")}
        repo={route.repo}
        form={form}
        versions={versions}
        result={shown.result}
        next={shown.next}
        highlighted={highlighted}
        problem={shown.problem}
      />,
      status,
    );
  let position: SearchCursor | undefined;
  try {
    position = after ? decodeSearchCursor(after) : undefined;
  } catch (error) {
    // A cursor no search gave is the request's fault: its error, as the tool answers it.
    if (!(error instanceof SourcegraphError)) throw error;
    const problem = { code: error.code, message: error.message };
    return await show(
      { result: null, problem },
      undefined,
      at.status(error.code) as ContentfulStatusCode,
    );
  }
  const { value: found, problem } = form.q === ""
    ? { value: null, problem: null }
    : await orProblem(() =>
      at.service.calls.search(caller, {
        repo: route.repo,
        revision: form.rev || undefined,
        after: position,
        pattern: form.q,
        fixedStrings: form.fixed,
        ignoreCase: form.ignoreCase,
        glob: searchGlobs(form.glob),
        maxLinesPerFile: 10,
        matchRanges: true,
        context: { before: form.context, after: form.context },
      }), at.status);
  const shown = found === null ? null : searchPage(found);
  const highlighted = await highlightedResults(at, shown?.result ?? null);
  return await show({ result: shown?.result ?? null, next: shown?.next, problem }, highlighted);
}

// The lines of search results highlighted, file by file (null: plain).
function highlightedResults(
  at: At,
  result: Pick<SearchResult, "outcome" | "context"> | null,
): Promise<(CodeLine[] | null)[]> {
  return highlightResultLines(
    at.highlighter,
    (result?.outcome.files ?? []).map((file) => ({
      path: file.path,
      lines: resultRows(file, result?.context?.get(file.path)).flatMap((row) =>
        row.kind === "line" ? [row.text] : []
      ),
    })),
  );
}

// The Search tab's form as the query asks it.
function searchFormOf(c: Context<PageEnv>): SearchForm {
  return {
    q: c.req.query("q") ?? "",
    rev: c.req.query("rev") ?? "",
    fixed: c.req.query("fixed") === "1",
    ignoreCase: c.req.query("case") === "1",
    glob: c.req.query("glob") ?? "",
    context: contextLines(c.req.query("context")),
  };
}

// The globs of a form's field (space-separated, at most 64).
function searchGlobs(field: string): string[] {
  return field.split(/\s+/).filter((glob) => glob !== "").slice(0, 64);
}

// The lines of context a form asks for: a whole number from 0 to the most, else the default.
function contextLines(value: string | undefined): number {
  const n = Number(value);
  return value !== undefined && /^[0-9]$/.test(value) && n <= MAX_PAGE_CONTEXT
    ? n
    : DEFAULT_PAGE_CONTEXT;
}

// One pattern over every repository the viewer may see.
async function siteSearch(c: Context<PageEnv>, at: At): Promise<Response> {
  const form: SiteSearchForm = {
    q: (c.req.query("q") ?? "").slice(0, 8192),
    fixed: c.req.query("fixed") === "1",
    ignoreCase: c.req.query("case") === "1",
    glob: c.req.query("glob") ?? "",
  };
  const q = form.q;
  const after = c.req.query("after");
  const { value: found, problem } = q === ""
    ? { value: null, problem: null }
    : await orProblem(() =>
      at.service.searchRepositories(c.get("caller"), {
        repos: null,
        pattern: q,
        fixedStrings: form.fixed,
        ignoreCase: form.ignoreCase,
        glob: searchGlobs(form.glob),
        maxLinesPerFile: 10,
        matchRanges: true,
        after: after ? decodeFanoutCursor(after) : undefined,
      }, at.fanoutCharge(c)), at.status);
  const byResult: (CodeLine[] | null)[][] = [];
  for (const result of found?.results ?? []) byResult.push(await highlightedResults(at, result));
  return page(
    c,
    <SiteSearchPage
      viewer={c.get("viewer")}
      form={form}
      found={found}
      highlighted={byResult}
      problem={problem}
    />,
  );
}

async function symbolsTab(
  c: Context<PageEnv>,
  route: { repo: string },
  at: At,
): Promise<Response> {
  const caller = c.get("caller");
  const match = c.req.query("match");
  const form: SymbolsForm = {
    q: c.req.query("q") ?? "",
    match: match === "prefix" || match === "regex" ? match : "exact",
    kind: (SYMBOL_KINDS as readonly string[]).includes(c.req.query("kind") ?? "")
      ? c.req.query("kind")!
      : "",
    rev: c.req.query("rev") ?? "",
  };
  const after = c.req.query("after");
  const { value: found, problem } = form.q === ""
    ? { value: null, problem: null }
    : await orProblem(() =>
      at.service.calls.symbols(caller, {
        repo: route.repo,
        revision: form.rev || undefined,
        query: form.q.slice(0, 1024),
        match: form.match,
        kinds: form.kind === "" ? undefined : [form.kind as SymbolKind],
        first: 50,
        after: after ? decodeSymbolCursor(after) : undefined,
      }), at.status);
  return page(
    c,
    <SymbolsPage
      viewer={c.get("viewer")}
      repo={route.repo}
      form={form}
      versions={at.service.retainedVersions(caller, { repo: route.repo })}
      found={found}
      problem={problem}
    />,
  );
}

async function pluginsTab(
  c: Context<PageEnv>,
  route: { repo: string },
  at: At,
): Promise<Response> {
  const caller = c.get("caller");
  const versions = at.service.retainedVersions(caller, { repo: route.repo });
  const revision = c.req.query("rev") || undefined;
  const { value: catalog, problem } = await orProblem(
    () => at.service.calls.pluginCatalog(caller, { repo: route.repo, revision }),
    at.status,
  );
  return page(
    c,
    <PluginsPage
      viewer={c.get("viewer")}
      repo={route.repo}
      versions={versions}
      catalog={catalog}
      problem={problem}
    />,
  );
}

async function filesPage(
  c: Context<PageEnv>,
  at: {
    service: RepositoryService;
    markdown?: DocumentRenderer;
    repo: string;
    commit: string;
    dir: string;
  },
): Promise<Response> {
  const caller = c.get("caller");
  const listing = await at.service.calls.list(caller, {
    repo: at.repo,
    revision: at.commit,
    path: at.dir || undefined,
    first: 1000,
    after: c.req.query("after") || undefined,
  });
  // The latest commit of each entry: left out when it cannot be had (the listing stands alone).
  const last = await at.service.calls.folderCommits(caller, {
    repo: at.repo,
    revision: at.commit,
    path: at.dir || undefined,
    names: listing.entries.map((entry) => entry.path.slice(entry.path.lastIndexOf("/") + 1)),
  }).catch((error) => {
    if (error instanceof SourcegraphError) return null;
    throw error;
  });
  return page(
    c,
    <FilesPage
      viewer={c.get("viewer")}
      listing={listing}
      versions={at.service.retainedVersions(caller, { repo: at.repo })}
      readme={c.req.query("after") ? null : await folderReadme(caller, { ...at, listing })}
      lastCommits={last?.commits ?? null}
    />,
  );
}

// The README among a listing's entries, read as its file page would be; none when unreadable.
async function folderReadme(
  caller: Caller,
  at: {
    service: RepositoryService;
    markdown?: DocumentRenderer;
    repo: string;
    listing: DirectoryListing;
  },
): Promise<Readme | null> {
  const path = readmePath(at.listing.entries);
  if (path === null) return null;
  try {
    const read = await at.service.calls.readPage(caller, {
      repo: at.repo,
      revision: at.listing.commit,
      path,
      startLine: 1,
    });
    return await readmeOf(at.repo, read, at.markdown);
  } catch (error) {
    if (error instanceof SourcegraphError) return null;
    throw error;
  }
}

// One page of a file (the read service pages it); a folder's path redirects to its tree.
async function blobPage(
  c: Context<PageEnv>,
  at: At & { repo: string; commit: string; path: string },
): Promise<Response> {
  const startLine = Math.max(
    1,
    Math.min(Number(c.req.query("start") ?? 1) || 1, Number.MAX_SAFE_INTEGER),
  );
  try {
    const read = await at.service.calls.readPage(c.get("caller"), {
      repo: at.repo,
      revision: at.commit,
      path: at.path,
      startLine,
      held: true,
    });
    const view = await withCode(blobView(at.repo, read), {
      highlighter: at.highlighter,
      markdown: at.markdown,
      plain: c.req.query("plain") === "1",
    });
    const outline = await fileOutline(c, { ...at, view });
    return await page(c, <BlobPage viewer={c.get("viewer")} view={{ ...view, outline }} />);
  } catch (error) {
    if (error instanceof SourcegraphError && error.code === "NOT_A_FILE") {
      return redirect(c, treeUrl(at.repo, { rev: at.commit, dir: at.path }), 302);
    }
    if (error instanceof SourcegraphError && error.code === "FILE_NOT_FOUND") {
      // The paths a read's answer would name as nearest, as links at the same version.
      const nearest = nearestPathsOfHint(error.hint).map((path) => ({
        name: path,
        href: blobUrl(at.repo, { rev: at.commit, path }),
      }));
      return await page(
        c,
        <ProblemPage
          viewer={c.get("viewer")}
          title="Not found"
          code={error.code}
          message={error.message}
          nearest={nearest}
        />,
        at.status(error.code) as ContentfulStatusCode,
      );
    }
    throw error;
  }
}

// The outline of a file shown as code (not for Markdown, nor a notice in
// place of the text); none when the symbol index cannot be asked: the page
// stands without it.
async function fileOutline(
  c: Context<PageEnv>,
  at: At & { repo: string; commit: string; path: string; view: BlobView },
): Promise<FileOutline | null> {
  if (at.view.lines === null || at.view.markdown !== null) return null;
  try {
    return await at.service.calls.outline(c.get("caller"), {
      repo: at.repo,
      revision: at.commit,
      path: at.path,
    });
  } catch (error) {
    if (error instanceof SourcegraphError) return null;
    throw error;
  }
}

// The revision a tree or blob path starts with: a full SHA, or the longest
// monitored branch its first segments spell (branch names may hold "/").
function pinnedRevision(
  service: RepositoryService,
  caller: Caller,
  at: { repo: string; rest: string[] },
): { rev: string; commit: string; rest: string[] } {
  if (isFullSha(at.rest[0])) {
    const rev = at.rest[0];
    try {
      return {
        rev,
        commit: service.resolve(caller, { repo: at.repo, revision: rev }).commit,
        rest: at.rest.slice(1),
      };
    } catch (error) {
      // Not a retained version: a file's pages still show it when a retained
      // version holds it (the reads check, as a commit page links there).
      if (!(error instanceof SourcegraphError) || error.code !== "REVISION_NOT_ELIGIBLE") {
        throw error;
      }
      return { rev, commit: rev, rest: at.rest.slice(1) };
    }
  }
  const branches = new Set(service.monitoredBranches(caller, { repo: at.repo }));
  for (let length = at.rest.length; length >= 1; length--) {
    const rev = at.rest.slice(0, length).join("/");
    if (branches.has(rev)) {
      return {
        rev,
        commit: service.resolve(caller, { repo: at.repo, revision: rev }).commit,
        rest: at.rest.slice(length),
      };
    }
  }
  // Let resolution say why (short SHA, unmonitored branch…).
  const commit = service.resolve(caller, { repo: at.repo, revision: at.rest[0] }).commit;
  return { rev: at.rest[0], commit, rest: at.rest.slice(1) };
}

// A domain failure is shown on the page in place of the result; a missing
// repository (or one the viewer may not see) still answers as not found.
async function orProblem<T>(
  work: () => Promise<T>,
  status: (code: string) => number,
): Promise<{ value: T | null; problem: PageProblem | null }> {
  try {
    return { value: await work(), problem: null };
  } catch (error) {
    // A missing thing and an empty bucket are answered as the whole page's error.
    if (
      !(error instanceof SourcegraphError) || status(error.code) === 404 ||
      error.code === "RATE_LIMITED"
    ) throw error;
    return { value: null, problem: { code: error.code, message: error.message } };
  }
}
