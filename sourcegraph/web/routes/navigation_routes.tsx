/**
 * The definition and references views of a name at a position of a file at
 * a full SHA (`?line=L&column=C`). The definition view redirects (303) to
 * the declaring line when one place is found, and lists the places (or
 * says there are none) otherwise; the references view shows one page of
 * references, continued by the `references` tool's cursor. Both read
 * through the same calls as the tools, so a private repository or a path
 * outside the viewer's path groups answers exactly as a missing one.
 *
 * @module
 */

import type { Context } from "hono";
import { SourcegraphError } from "../../errors.ts";
import type { RepositoryService } from "../../service/repository_service.ts";
import { decodeSearchCursor } from "../../render/search_cursor.ts";
import { referencesNextCursor } from "../../render/references_text.ts";
import { blobUrl, type PagePosition } from "../../render/page_urls.ts";
import { page, type PageEnv, redirect } from "../page_responses.tsx";
import { DefinitionPage, ReferencesView } from "../navigation_pages.tsx";

// The most a column may be, as the tools take it.
const MAX_COLUMN = 100_000;

/**
 * The position a request's `line` and `column` name, or null when either
 * is absent or not a whole number in range (1 or more; a column at most
 * 100,000).
 */
export function positionOf(
  query: { line?: string; column?: string },
  at: { rev: string; path: string },
): PagePosition | null {
  const line = wholeNumber(query.line, Number.MAX_SAFE_INTEGER);
  const column = wholeNumber(query.column, MAX_COLUMN);
  return line === null || column === null ? null : { ...at, line, column };
}

function wholeNumber(text: string | undefined, most: number): number | null {
  if (text === undefined || !/^[1-9][0-9]{0,15}$/.test(text)) return null;
  const number = Number(text);
  return number <= most ? number : null;
}

/** The request's position in `at` (INVALID_ARGUMENTS when `line` or `column` is not one). */
export function requiredPosition(
  c: Context<PageEnv>,
  at: { rev: string; path: string },
): PagePosition {
  const position = positionOf({ line: c.req.query("line"), column: c.req.query("column") }, at);
  if (position === null) {
    throw new SourcegraphError(
      "INVALID_ARGUMENTS",
      "line and column must be whole numbers from 1 (a column at most 100000)",
    );
  }
  return position;
}

/** The definition view of the name at the request's position in `at.path` at `at.commit`. */
export async function definitionView(
  c: Context<PageEnv>,
  at: { service: RepositoryService; repo: string; commit: string; path: string },
): Promise<Response> {
  const position = requiredPosition(c, { rev: at.commit, path: at.path });
  const answer = await at.service.calls.definition(c.get("caller"), {
    repo: at.repo,
    revision: at.commit,
    path: at.path,
    line: position.line,
    column: position.column,
  });
  const found = answer.definition;
  if (found !== null && answer.alternatives.length === 0) {
    return redirect(
      c,
      blobUrl(at.repo, { rev: answer.commit, path: found.path, start: found.line }),
      303,
    );
  }
  return await page(c, <DefinitionPage viewer={c.get("viewer")} answer={answer} at={position} />);
}

/** One page of the references of the name at the request's position (`after`: the cursor). */
export async function referencesView(
  c: Context<PageEnv>,
  at: { service: RepositoryService; repo: string; commit: string; path: string },
): Promise<Response> {
  const position = requiredPosition(c, { rev: at.commit, path: at.path });
  const after = c.req.query("after");
  const found = await at.service.calls.references(c.get("caller"), {
    repo: at.repo,
    revision: at.commit,
    path: at.path,
    line: position.line,
    column: position.column,
    after: after ? decodeSearchCursor(after) : undefined,
  });
  return await page(
    c,
    <ReferencesView
      viewer={c.get("viewer")}
      page={found}
      at={position}
      next={referencesNextCursor(found)}
    />,
  );
}
