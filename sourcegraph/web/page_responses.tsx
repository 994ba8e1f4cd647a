/**
 * What every page route shares: the context variables the pages app sets,
 * an HTML answer, the one way to redirect (same-origin paths only) and the
 * not-found page.
 *
 * @module
 */

import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Caller } from "../access/caller.ts";
import { SourcegraphError } from "../errors.ts";
import type { Html, Viewer } from "./layout.tsx";
import { PAGES_ROOT } from "../render/page_urls.ts";
import type { Session } from "./sessions.ts";
import { ProblemPage } from "./sign_in_page.tsx";

/** The context variables of the page routes. */
export type PageEnv = {
  Variables: {
    /** The bearer's caller from the edge, then the viewer (the session's caller, if any). */
    caller: Caller;
    /** From the edge: logged with unexpected failures, shown on their page. */
    requestId: string;
    session: Session | null;
    viewer: Viewer;
  };
};

/** An HTML answer: the document type, then the rendered page. */
export async function page(
  c: Context<PageEnv>,
  body: Html,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  return c.html(`<!DOCTYPE html>${await body}`, status);
}

/**
 * Every redirect goes through here: its target is a path of these pages
 * built from checked segments, so it can never leave the origin (no "//" or
 * backslash that a browser would read as another host, no dot segment);
 * anything else answers as not found.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * import { Hono } from "hono";
 * import { treeUrl } from "../render/page_urls.ts";
 * const app = new Hono<PageEnv>();
 * app.onError((error, c) => c.text((error as { code?: string }).code ?? "?", 404));
 * app.get("/docs", (c) => redirect(c, treeUrl("org/app", { rev: "main", dir: "docs" }), 303));
 * app.get("/away", (c) => redirect(c, "/sourcegraph//evil.example/", 302));
 * const docs = await app.request("/docs");
 * assert.strictEqual(docs.status, 303);
 * assert.strictEqual(docs.headers.get("location"), "/sourcegraph/org/app/-/tree/main/docs");
 * const away = await app.request("/away"); // a browser would read "//" as another host
 * assert.deepStrictEqual([away.status, await away.text()], [404, "NOT_FOUND"]);
 * ```
 */
export function redirect(
  c: Context<PageEnv>,
  location: string,
  status: 301 | 302 | 303,
): Response {
  const path = location.split(/[?#]/, 1)[0];
  const inside = path === PAGES_ROOT || path.startsWith(`${PAGES_ROOT}/`);
  const plain = !path.includes("//") && !path.includes("\\") &&
    !path.split("/").some((segment) => segment === "." || segment === "..");
  if (!inside || !plain) throw new SourcegraphError("NOT_FOUND", "no such page");
  return c.redirect(location, status);
}

/**
 * The pages' own 404 (mounted in the edge, a sub-app's `notFound` would be
 * the edge's).
 */
export function notFoundPage(c: Context<PageEnv>): Promise<Response> {
  return page(
    c,
    <ProblemPage
      viewer={c.get("viewer") ?? { label: null, csrf: null }}
      title="Not found"
      code="NOT_FOUND"
      message="no such page"
    />,
    404,
  );
}
