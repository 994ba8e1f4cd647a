/**
 * A folder's README under its listing, as code hosts show it: the first
 * file named `README` (any case, Markdown preferred over plain text) is
 * rendered when it is Markdown and shown as text otherwise, with its links
 * pinned to the listing's commit. A README that cannot be shown as text
 * (binary, too large) is simply left out; one the renderer refuses (too
 * long, too slow) is shown as text under a one-line notice.
 *
 * @module
 */

import { raw } from "hono/html";
import type { FilePage } from "../read/file_page.ts";
import { MARKDOWN_NOT_RENDERED } from "./blob_page.tsx";
import type { DocumentRenderer } from "./code/markdown_renderer.ts";
import type { Html } from "./layout.tsx";
import { blobUrl, isMarkdownPath } from "../render/page_urls.ts";

const README = /^readme(?:\.(md|markdown|mdown|mkd|txt|rst|adoc))?$/i;
const PREFERENCE = ["md", "markdown", "mdown", "mkd", undefined, "txt", "adoc", "rst"];

/** The path of the README among a folder's entries, or null. */
export function readmePath(entries: readonly { path: string; kind: string }[]): string | null {
  let best: { path: string; rank: number } | null = null;
  for (const entry of entries) {
    if (entry.kind !== "file") continue;
    const match = README.exec(entry.path.slice(entry.path.lastIndexOf("/") + 1));
    if (match === null) continue;
    const rank = PREFERENCE.indexOf(match[1]?.toLowerCase());
    if (best === null || rank < best.rank) best = { path: entry.path, rank };
  }
  return best?.path ?? null;
}

/** A README as the files page shows it. */
export interface Readme {
  repo: string;
  commit: string;
  path: string;
  /** Rendered Markdown, or null to show `text` as it is. */
  html: string | null;
  /** Why Markdown is shown as text, in one line. */
  notice: string | null;
  text: string;
  /** More lines follow than were read. */
  cut: boolean;
}

/**
 * What the files page shows of the README read as `page` (null: nothing to
 * show), Markdown rendered by `markdown` (without one, shown as text).
 */
export async function readmeOf(
  repo: string,
  page: FilePage,
  markdown?: DocumentRenderer,
): Promise<Readme | null> {
  if (page.withheld !== null || page.kind !== "file") return null;
  const text = page.lines.join("\n");
  let html: string | null = null;
  let notice: string | null = null;
  if (isMarkdownPath(page.path) && markdown !== undefined && page.blob !== null) {
    const rendered = await markdown.render({
      blob: page.blob,
      firstLine: page.firstLine,
      source: text,
      repo,
      commit: page.commit,
      path: page.path,
    });
    html = rendered.html;
    if (rendered.refused !== null) notice = markdown.describe(rendered.refused);
  }
  return {
    repo,
    commit: page.commit,
    path: page.path,
    html,
    notice,
    text,
    cut: page.nextStartLine !== null,
  };
}

/** The README below a listing. */
export function ReadmeSection(props: { readme: Readme }): Html {
  const { readme } = props;
  const name = readme.path.slice(readme.path.lastIndexOf("/") + 1);
  return (
    <section class="readme">
      <p class="readme-title">
        <a href={blobUrl(readme.repo, { rev: readme.commit, path: readme.path })}>{name}</a>
        {readme.cut ? <span class="muted">(the first part)</span> : null}
      </p>
      {readme.notice === null ? null : (
        <p class="notice">
          <code>{MARKDOWN_NOT_RENDERED}</code> {readme.notice}
        </p>
      )}
      {readme.html === null
        ? <pre class="readme-text">{readme.text}</pre>
        : <article class="markdown-body">{raw(readme.html)}</article>}
    </section>
  );
}
