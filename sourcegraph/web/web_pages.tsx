/**
 * The web pages under `/sourcegraph/` for people: server-rendered HTML
 * (Hono's router and JSX, which escapes every value) that works without
 * JavaScript. Pages see exactly what MCP shows the same caller: anonymous
 * visitors only public repositories (none when public reads are off), and
 * a repository the viewer may not see answers exactly as a missing one.
 * Signing in exchanges a personal key or the service token for a
 * server-side session; every form that changes state carries a CSRF token.
 * Every answer carries a Content-Security-Policy without inline scripts or
 * styles, and the Host/Origin rules of the MCP endpoint apply before any
 * page is reached.
 *
 * @module
 */

import { Hono } from "hono";
import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { secureHeaders } from "hono/secure-headers";
import type { Caller } from "../access/caller.ts";
import { callerForSecret } from "../access/credentials.ts";
import { SourcegraphError } from "../errors.ts";
import { internalError } from "../internal_error.ts";
import type { RepositoryService } from "../service/repository_service.ts";
import type { ControlStore } from "../store/control_store.ts";
import { ICON, SCRIPT, STYLE_SHEET } from "./assets.ts";
import { BlobPage, type BlobView } from "./blob_page.tsx";
import { ConnectPage } from "./connect_page.tsx";
import { HomePage } from "./home_page.tsx";
import type { Html, Viewer } from "./layout.tsx";
import {
  blobUrl,
  homeUrl,
  isFullSha,
  mcpUrl,
  PAGES_ROOT,
  parseRepositoryPath,
  type RepositoryRoute,
  tabUrl,
  treeUrl,
} from "./page_urls.ts";
import { PLUGIN_CONTRACT } from "./plugin_contract.ts";
import {
  FilesPage,
  type PageProblem,
  PluginsPage,
  type SearchForm,
  SearchPage,
  type VersionChoice,
  VersionsPage,
} from "./repository_pages.tsx";
import { randomToken, type Session, Sessions } from "./sessions.ts";
import { ProblemPage, SignInPage } from "./sign_in_page.tsx";

const SESSION_COOKIE = "sg_session";
const SIGN_IN_COOKIE = "sg_sign_in";
/** Most lines one file page shows (the rest is paged with `?start=`). */
export const PAGE_MAX_LINES = 5_000;
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** What the pages need from the HTTP edge they are mounted in. */
export interface PageEdge {
  /**
   * Admits a page view once `c.var.caller` names its viewer (the anonymous
   * limits); a search with a query costs what it costs on MCP.
   */
  admit: MiddlewareHandler;
  /** Reads a form body within the edge's body limits. */
  readForm: (c: Context) => Promise<URLSearchParams>;
  /** The HTTP status of an error code. */
  status: (code: string) => number;
}

type Env = {
  Variables: {
    /** The bearer's caller from the edge, then the viewer (the session's caller, if any). */
    caller: Caller;
    /** From the edge: logged with unexpected failures, shown on their page. */
    requestId: string;
    session: Session | null;
    viewer: Viewer;
  };
};

/** What the pages are built with. */
export interface PagesOptions {
  store: ControlStore;
  edge: PageEdge;
  serviceToken?: string;
  /** The origin the connect page advertises, when set. */
  publicUrl?: string;
  log: (line: string) => void;
  sessions?: Sessions;
}

/** The web pages as a sub-app, mounted at the service's root. */
export function pagesApp(service: RepositoryService, options: PagesOptions): Hono<Env> {
  const sessions = options.sessions ??
    new Sessions({
      valid: (caller) => caller.kind === "service" || options.store.hasKey(caller.id),
    });
  return buildApp(service, { ...options, sessions });
}

function buildApp(
  service: RepositoryService,
  options: PagesOptions & { sessions: Sessions },
): Hono<Env> {
  const { sessions, log, edge } = options;
  // Not strict: `/sourcegraph` and `/sourcegraph/` are the same page.
  const app = new Hono<Env>({ strict: false }).basePath(PAGES_ROOT);
  app.use(async (c, next) => {
    await next();
    c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    if (!c.res.headers.has("cache-control")) c.header("Cache-Control", "private, no-store");
  });
  app.use(secureHeaders({
    contentSecurityPolicy: undefined,
    strictTransportSecurity: false,
    xFrameOptions: "DENY",
    referrerPolicy: "same-origin",
    crossOriginEmbedderPolicy: false,
  }));
  // Who is looking: the request's own credentials, else its session.
  app.use(async (c, next) => {
    const own = c.var.caller;
    const session = own.kind === "anonymous" ? sessions.get(getCookie(c, SESSION_COOKIE)) : null;
    const caller = session?.caller ?? own;
    c.set("caller", caller);
    c.set("session", session);
    c.set("viewer", {
      label: caller.kind === "service"
        ? "service token"
        : caller.kind === "key"
        ? "personal key"
        : null,
      csrf: session?.csrf ?? null,
    });
    await next();
  });
  app.use(edge.admit);
  app.onError((error, c) => {
    const viewer = c.get("viewer") ?? { label: null, csrf: null };
    if (error instanceof SourcegraphError) {
      const status = edge.status(error.code);
      return page(
        c,
        <ProblemPage
          viewer={viewer}
          title={titleOf(status)}
          code={error.code}
          message={error.message}
        />,
        status as ContentfulStatusCode,
      );
    }
    const known = internalError(error, { requestId: c.var.requestId, log });
    return page(
      c,
      <ProblemPage
        viewer={viewer}
        title="Something went wrong"
        code={known.code}
        message={known.message}
        requestId={c.var.requestId}
      />,
      500,
    );
  });
  // Mounted in the edge, the sub-app's notFound is the edge's: pages answer their own.
  const notFound = (c: Context<Env>) =>
    page(
      c,
      <ProblemPage
        viewer={c.get("viewer") ?? { label: null, csrf: null }}
        title="Not found"
        code="NOT_FOUND"
        message="no such page"
      />,
      404,
    );

  app.get("/-/static/app.css", (c) => asset(c, STYLE_SHEET, "text/css; charset=utf-8"));
  app.get("/-/static/app.js", (c) => asset(c, SCRIPT, "text/javascript; charset=utf-8"));
  app.get("/-/static/icon.svg", (c) => asset(c, ICON, "image/svg+xml"));
  app.get("/plugins/llms.txt", (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.text(PLUGIN_CONTRACT);
  });
  app.get("/-/connect", (c) => {
    // The validated Host header, never the request target (an absolute-form
    // target may name any origin).
    const origin = options.publicUrl?.replace(/\/+$/, "") ?? `http://${c.req.header("host")}`;
    return page(
      c,
      <ConnectPage viewer={c.get("viewer")} endpoint={`${origin}${mcpUrl()}`} />,
    );
  });
  app.get("/-/sign-in", (c) => {
    const token = randomToken();
    setCookie(
      c,
      SIGN_IN_COOKIE,
      token,
      cookieOptions(c, { maxAge: 600, publicUrl: options.publicUrl }),
    );
    return page(c, <SignInPage viewer={c.get("viewer")} csrf={token} failed={false} />);
  });
  app.post("/-/sign-in", async (c) => {
    const form = await edge.readForm(c);
    const expected = getCookie(c, SIGN_IN_COOKIE);
    if (!expected || !sameToken(form.get("csrf"), expected)) {
      throw new SourcegraphError(
        "CSRF_TOKEN_INVALID",
        "the form expired; open the sign-in page again",
      );
    }
    const secret = form.get("secret") ?? "";
    const caller = secret.length > 0 && secret.length <= 512
      ? callerForSecret(secret, { serviceToken: options.serviceToken, store: options.store })
      : null;
    if (caller === null || caller.kind === "anonymous") {
      const token = randomToken();
      setCookie(
        c,
        SIGN_IN_COOKIE,
        token,
        cookieOptions(c, { maxAge: 600, publicUrl: options.publicUrl }),
      );
      return page(c, <SignInPage viewer={c.get("viewer")} csrf={token} failed />, 401);
    }
    const previous = c.get("session");
    if (previous) sessions.remove(previous.id);
    const session = sessions.create(caller);
    deleteCookie(c, SIGN_IN_COOKIE, { path: PAGES_ROOT });
    setCookie(
      c,
      SESSION_COOKIE,
      session.id,
      cookieOptions(c, { maxAge: 8 * 60 * 60, publicUrl: options.publicUrl }),
    );
    return redirect(c, homeUrl(), 303);
  });
  app.post("/-/sign-out", async (c) => {
    const form = await edge.readForm(c);
    const session = c.get("session");
    if (session === null || !sameToken(form.get("csrf"), session.csrf)) {
      throw new SourcegraphError("CSRF_TOKEN_INVALID", "the form expired; reload the page");
    }
    sessions.remove(session.id);
    deleteCookie(c, SESSION_COOKIE, { path: PAGES_ROOT });
    return redirect(c, homeUrl(), 303);
  });
  app.get("/-/search", (c) => {
    // The home page's search box: on to the repository's Search tab.
    const segments = plainSegments((c.req.query("repo") ?? "").split("/"));
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
    if (route === null) return notFound(c);
    return await repositoryPage(c, route, { service, status: edge.status });
  });
  app.all("/*", notFound);
  return app;
}

async function repositoryPage(
  c: Context<Env>,
  route: RepositoryRoute,
  at: { service: RepositoryService; status: (code: string) => number },
): Promise<Response> {
  const { service, status } = at;
  const caller = c.get("caller");
  const viewer = c.get("viewer");
  const { repo } = route;
  const versions = (): VersionChoice[] => service.retainedVersions(caller, { repo });
  switch (route.page) {
    case "plugin_blob":
      service.resolve(caller, { repo, revision: route.sha });
      return redirect(c, blobUrl(repo, { rev: route.sha, path: route.path }), 301);
    case "repository": {
      const rev = c.req.query("rev");
      const dir = c.req.query("dir") ?? "";
      if (rev !== undefined && rev !== "") {
        const { commit } = service.resolve(caller, { repo, revision: rev });
        if (dir !== "" && plainSegments(dir.split("/")) === null) {
          throw new SourcegraphError("NOT_FOUND", "no such folder");
        }
        return redirect(c, treeUrl(repo, { rev: commit, dir }), 303);
      }
      const { commit } = service.resolve(caller, { repo });
      return await filesPage(c, { service, repo, commit, dir: "" });
    }
    case "tree":
    case "blob": {
      const at = pinnedRevision(service, caller, { repo, rest: route.rest });
      const path = at.rest.join("/");
      if (!isFullSha(at.rev)) {
        const url = route.page === "tree"
          ? treeUrl(repo, { rev: at.commit, dir: path })
          : blobUrl(repo, { rev: at.commit, path });
        const query = new URL(c.req.url).search;
        return redirect(c, `${url}${query}`, 302);
      }
      if (route.page === "tree") {
        return await filesPage(c, { service, repo, commit: at.commit, dir: path });
      }
      return await blobPage(c, { service, repo, commit: at.commit, path });
    }
    case "versions": {
      const skip = Math.max(0, Math.min(Number(c.req.query("skip") ?? 0) || 0, 1_000_000));
      const history = await service.versionHistory(caller, { repo, first: 100, skip });
      return page(
        c,
        <VersionsPage
          viewer={viewer}
          repo={repo}
          total={history.total}
          skip={skip}
          versions={history.versions}
          current={c.req.query("rev")}
        />,
      );
    }
    case "search": {
      const form: SearchForm = {
        q: c.req.query("q") ?? "",
        rev: c.req.query("rev") ?? "",
        fixed: c.req.query("fixed") === "1",
        ignoreCase: c.req.query("case") === "1",
        glob: c.req.query("glob") ?? "",
      };
      const choices = versions();
      const { value: result, problem } = form.q === ""
        ? { value: null, problem: null }
        : await orProblem(() =>
          service.search(caller, {
            repo,
            revision: form.rev || undefined,
            pattern: form.q,
            fixedStrings: form.fixed,
            ignoreCase: form.ignoreCase,
            glob: form.glob.split(/\s+/).filter((glob) => glob !== "").slice(0, 64),
            maxLinesPerFile: 10,
          }), status);
      return page(
        c,
        <SearchPage
          viewer={viewer}
          repo={repo}
          form={form}
          versions={choices}
          result={result}
          problem={problem}
        />,
      );
    }
    case "plugins": {
      const choices = versions();
      const revision = c.req.query("rev") || undefined;
      const { value: catalog, problem } = await orProblem(
        () => service.pluginCatalog(caller, { repo, revision }),
        status,
      );
      return page(
        c,
        <PluginsPage
          viewer={viewer}
          repo={repo}
          versions={choices}
          catalog={catalog}
          problem={problem}
        />,
      );
    }
  }
}

async function filesPage(
  c: Context<Env>,
  at: { service: RepositoryService; repo: string; commit: string; dir: string },
): Promise<Response> {
  const caller = c.get("caller");
  const listing = await at.service.list(caller, {
    repo: at.repo,
    revision: at.commit,
    path: at.dir || undefined,
    first: 1000,
    after: c.req.query("after") || undefined,
  });
  return page(
    c,
    <FilesPage
      viewer={c.get("viewer")}
      listing={listing}
      versions={at.service.retainedVersions(caller, { repo: at.repo })}
    />,
  );
}

async function blobPage(
  c: Context<Env>,
  at: { service: RepositoryService; repo: string; commit: string; path: string },
): Promise<Response> {
  const caller = c.get("caller");
  const start = Math.max(
    1,
    Math.min(Number(c.req.query("start") ?? 1) || 1, Number.MAX_SAFE_INTEGER),
  );
  const view: BlobView = {
    repo: at.repo,
    commit: at.commit,
    path: at.path,
    lines: null,
    firstLine: start,
    nextStart: null,
    notice: null,
    target: null,
  };
  const lines: string[] = [];
  try {
    let next: number | null = start;
    while (next !== null && lines.length < PAGE_MAX_LINES) {
      const read = await at.service.read(caller, {
        repo: at.repo,
        revision: at.commit,
        path: at.path,
        startLine: next,
        endLine: Math.min(next + 499, start + PAGE_MAX_LINES - 1),
      });
      if (read.kind === "submodule") {
        view.notice = {
          code: "SUBMODULE",
          message: "a submodule: its content is another repository",
        };
        break;
      }
      if (read.kind === "symlink") {
        view.notice = {
          code: "SYMLINK",
          message: read.followError ?? "a symbolic link that cannot be followed",
        };
        break;
      }
      if (read.via !== null) view.target = read.path;
      if (read.isLfsPointer) {
        view.notice = {
          code: "LFS_POINTER",
          message: "a Git LFS pointer: the content is stored outside Git",
        };
      }
      if (read.content !== "") lines.push(...read.content.slice(0, -1).split("\n"));
      next = read.nextStartLine;
      if (read.returnedEndLine === 0) break;
    }
    view.nextStart = next;
    if (view.notice === null || view.notice.code === "LFS_POINTER") view.lines = lines;
  } catch (error) {
    if (!(error instanceof SourcegraphError)) throw error;
    if (error.code === "NOT_A_FILE") {
      return redirect(c, treeUrl(at.repo, { rev: at.commit, dir: at.path }), 302);
    }
    const notices: Record<string, string> = {
      BINARY_FILE: "a binary file: it is not shown",
      READ_SCAN_LIMIT: "larger than the 8 MiB read limit: it is not shown",
      UNSUPPORTED_TEXT_ENCODING: "not UTF-8 text: it is not shown",
      FILE_LINE_TOO_LARGE: "a line is larger than 256 KiB: the file is not shown",
    };
    if (!(error.code in notices)) throw error;
    view.notice = { code: error.code, message: notices[error.code] };
    if (lines.length > 0) view.lines = lines;
  }
  return page(c, <BlobPage viewer={c.get("viewer")} view={view} />);
}

// The revision a tree or blob path starts with: a full SHA, or the longest
// monitored branch its first segments spell (branch names may hold "/").
function pinnedRevision(
  service: RepositoryService,
  caller: Caller,
  at: { repo: string; rest: string[] },
): { rev: string; commit: string; rest: string[] } {
  if (isFullSha(at.rest[0])) {
    return {
      rev: at.rest[0],
      commit: service.resolve(caller, { repo: at.repo, revision: at.rest[0] }).commit,
      rest: at.rest.slice(1),
    };
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
    if (!(error instanceof SourcegraphError) || status(error.code) === 404) throw error;
    return { value: null, problem: { code: error.code, message: error.message } };
  }
}

function titleOf(status: number): string {
  return status === 404
    ? "Not found"
    : status === 401 || status === 403
    ? "Not allowed"
    : "Cannot show this";
}

function asset(c: Context<Env>, body: string, type: string): Response {
  c.header("Cache-Control", "public, max-age=3600");
  c.header("Content-Type", type);
  return c.body(body);
}

// Decoded path segments below the root; null when a segment is not a plain
// name (encoded slashes, dot segments, control characters).
function pathSegments(path: string): string[] | null {
  const segments: string[] = [];
  for (const raw of path.slice(PAGES_ROOT.length + 1).split("/")) {
    try {
      segments.push(decodeURIComponent(raw));
    } catch {
      return null;
    }
  }
  return plainSegments(segments);
}

// The segments when each is a plain name: not empty, not a dot segment, no
// slash, backslash or control character; else null.
function plainSegments(segments: readonly string[]): string[] | null {
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === ".." || /[\/\\\p{Cc}]/u.test(segment)) {
      return null;
    }
  }
  return [...segments];
}

// Every redirect goes through here: its target is a path of these pages
// built from checked segments, so it can never leave the origin (no "//" or
// backslash that a browser would read as another host, no dot segment).
function redirect(c: Context<Env>, location: string, status: 301 | 302 | 303): Response {
  const path = location.split(/[?#]/, 1)[0];
  const inside = path === PAGES_ROOT || path.startsWith(`${PAGES_ROOT}/`);
  const plain = !path.includes("//") && !path.includes("\\") &&
    !path.split("/").some((segment) => segment === "." || segment === "..");
  if (!inside || !plain) throw new SourcegraphError("NOT_FOUND", "no such page");
  return c.redirect(location, status);
}

function cookieOptions(c: Context<Env>, options: { maxAge: number; publicUrl?: string }) {
  const secure = options.publicUrl?.startsWith("https:") === true ||
    c.req.header("x-forwarded-proto") === "https";
  return {
    path: PAGES_ROOT,
    httpOnly: true,
    sameSite: "Strict" as const,
    secure,
    maxAge: options.maxAge,
  };
}

function sameToken(given: string | null, expected: string): boolean {
  if (given === null || given.length !== expected.length) return false;
  let difference = 0;
  for (let i = 0; i < given.length; i++) difference |= given.charCodeAt(i) ^ expected.charCodeAt(i);
  return difference === 0;
}

// An HTML answer: the document type, then the rendered page.
async function page(
  c: Context<Env>,
  body: Html,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  return c.html(`<!DOCTYPE html>${await body}`, status);
}
