/**
 * Pieces of the tools' structured answers: the answer of a tool whose text
 * is JSON (the same object, links added), the small output shapes several
 * tools share, and the absolute links to the web pages.
 *
 * @module
 */

import { z } from "zod";
import { blobUrl, commitUrl } from "../../render/page_urls.ts";
import type { ToolAnswer, ToolContext } from "./tool.ts";

type Json = Record<string, unknown>;

/** A commit SHA, in answers. */
export const sha = z.string();
/** An absolute link to the web page showing what an entry names (absent when no pages are served). */
export const url = z.string().optional();
/** A line number, in answers. */
export const lineNumber = z.number().int();
/** The cursor of the next page, in answers. */
export const nextCursor = z.string().optional();

/**
 * The answer of a tool whose text is the JSON of `json`: the structured
 * content is that object, with `links` (absolute URLs) added when given.
 */
export function jsonAnswer(json: Json, links: Json = {}): ToolAnswer {
  return { text: [JSON.stringify(json)], structured: { ...json, ...links } };
}

/** The link to a file's lines at a commit, absolute; nothing when no pages are served. */
export function fileLink(
  { pageLink }: Pick<ToolContext, "pageLink">,
  repo: string,
  at: { commit: string; path: string; start?: number; end?: number },
): { url: string } | Record<never, never> {
  if (pageLink === null) return {};
  return {
    url: pageLink(blobUrl(repo, { rev: at.commit, path: at.path, start: at.start, end: at.end })),
  };
}

/** The link to a commit's page, absolute; nothing when no pages are served. */
export function commitLink(
  { pageLink }: Pick<ToolContext, "pageLink">,
  repo: string,
  commit: string,
): { url: string } | Record<never, never> {
  return pageLink === null ? {} : { url: pageLink(commitUrl(repo, commit)) };
}

/** A commit as `history` and `commits` answer it. */
export const commitEntry = z.object({ commit: sha, subject: z.string(), url });

/** The structured entry of one commit row (`commitRow`), linked to its page. */
export function commitEntryOf(
  context: Pick<ToolContext, "pageLink">,
  repo: string,
  entry: { commit: string; authorName: string; authorDate: string; subject: string },
): Record<string, unknown> {
  return {
    commit: entry.commit,
    author: entry.authorName,
    date: entry.authorDate,
    subject: entry.subject,
    ...commitLink(context, repo, entry.commit),
  };
}
