/**
 * The file page at a full SHA: numbered lines, each an anchor (`#L2`),
 * syntax-highlighted when the path names a grammar, a `#L2-L4` range
 * highlighted by the script, and a notice instead of the text for binary,
 * oversized and non-UTF-8 files, symbolic links and submodules. A Markdown
 * file is shown rendered (in a worker, bounded: past its bounds the source
 * with a one-line notice), with its source (and line anchors) a toggle away
 * (`?plain=1`). In a language the symbol index reads, each name of the
 * highlighted code links to its definition (`?line=L&column=C`), and at
 * wide widths the file's outline (its definitions) stands beside the code.
 * Every link on it is pinned to the SHA.
 *
 * @module
 */

import { raw } from "hono/html";
import type { FilePage } from "../read/file_page.ts";
import { codeRows } from "./code/code_rows.ts";
import { highlightFileLines } from "./code/code_highlighting.ts";
import type { CodeLine } from "./code/highlighted_lines.ts";
import type { CodeHighlighter } from "./code/highlighter.ts";
import { IDENTIFIER_LINKS_MAX } from "./code/identifier_links.ts";
import type { FileOutline } from "../service/repository_symbols.ts";
import { grammarLanguageOf, patternLanguageOf } from "../symbols/languages.ts";
import type { DocumentRenderer } from "./code/markdown_renderer.ts";
import { Breadcrumbs, type Html, Layout, ShortSha, Tabs, type Viewer } from "./layout.tsx";
import {
  blameUrl,
  blobUrl,
  commitsUrl,
  isMarkdownPath,
  rawUrl,
  treeUrl,
} from "../render/page_urls.ts";

/** What the page shows of a file. */
export interface BlobView {
  repo: string;
  commit: string;
  path: string;
  /** The id of the blob shown (null when withheld). */
  blob: string | null;
  /** The lines shown, from `firstLine`; null with a notice. */
  lines: string[] | null;
  firstLine: number;
  /** Where the next page of lines starts, when the file goes on. */
  nextStart: number | null;
  /** Why the text is not shown, or a remark above it. */
  notice: { code: string; message: string } | null;
  /** The path a symbolic link led to, when one was followed. */
  target: string | null;
  /** The lines highlighted (null: plain text). */
  highlighted: CodeLine[] | null;
  /**
   * For a Markdown file: whether the source is shown (`?plain=1`), and the
   * rendered HTML otherwise (null when too large to render).
   */
  markdown: { plain: boolean; html: string | null } | null;
  /** The file's definitions from the symbol index, shown beside the code (null: none to show). */
  outline: FileOutline | null;
}

const WITHHELD: Record<NonNullable<FilePage["withheld"]>, string> = {
  BINARY_FILE: "a binary file: it is not shown",
  READ_SCAN_LIMIT: "larger than the 8 MiB read limit: it is not shown",
  UNSUPPORTED_TEXT_ENCODING: "not UTF-8 text: it is not shown",
  FILE_LINE_TOO_LARGE: "a line is larger than 256 KiB: the file is not shown",
};

/** What the page shows of one page of a file read from `repo`. */
export function blobView(repo: string, read: FilePage): BlobView {
  const view: BlobView = {
    repo,
    commit: read.commit,
    path: read.path,
    blob: read.blob,
    lines: read.lines,
    firstLine: read.firstLine,
    nextStart: read.nextStartLine,
    notice: null,
    target: read.target,
    highlighted: null,
    markdown: null,
    outline: null,
  };
  if (read.withheld !== null) {
    return {
      ...view,
      lines: null,
      notice: { code: read.withheld, message: WITHHELD[read.withheld] },
    };
  }
  if (read.kind === "submodule") {
    const message = "a submodule: its content is another repository";
    return { ...view, lines: null, notice: { code: "SUBMODULE", message } };
  }
  if (read.kind === "symlink") {
    const message = read.followError ?? "a symbolic link that cannot be followed";
    return { ...view, lines: null, notice: { code: "SYMLINK", message } };
  }
  if (read.isLfsPointer) {
    const message = "a Git LFS pointer: the content is stored outside Git";
    return { ...view, notice: { code: "LFS_POINTER", message } };
  }
  return view;
}

/** The notice code of a Markdown file shown as its source because it was not rendered. */
export const MARKDOWN_NOT_RENDERED = "MARKDOWN_NOT_RENDERED";

/**
 * `view` with its code: a Markdown file rendered by `markdown` (unless
 * `plain`; past the renderer's bounds, its plain source with a one-line
 * notice; without a renderer, its source), any other text highlighted by
 * `highlighter` when its path names a grammar.
 */
export async function withCode(
  view: BlobView,
  options: { highlighter?: CodeHighlighter; markdown?: DocumentRenderer; plain: boolean },
): Promise<BlobView> {
  if (view.lines === null) return view;
  if (isMarkdownPath(view.path) && !options.plain && options.markdown && view.blob !== null) {
    const rendered = await options.markdown.render({
      blob: view.blob,
      firstLine: view.firstLine,
      source: view.lines.join("\n"),
      repo: view.repo,
      commit: view.commit,
      path: view.path,
    });
    if (rendered.html !== null) return { ...view, markdown: { plain: false, html: rendered.html } };
    // Shown as source, plain: a document too costly to render is not highlighted either.
    const message = options.markdown.describe(rendered.refused);
    return {
      ...view,
      notice: view.notice ?? { code: MARKDOWN_NOT_RENDERED, message },
      markdown: { plain: true, html: null },
    };
  }
  const highlighted = await highlightFileLines(options.highlighter, {
    path: view.path,
    lines: view.lines,
  });
  const markdown = isMarkdownPath(view.path) ? { plain: true, html: null } : null;
  return { ...view, highlighted, markdown };
}

// The path (each segment a link) and the file's actions, kept in view while
// the code scrolls. The copy buttons need the script, which shows them;
// "Copy citation" shows while a line range is selected.
function FileHeader(props: { view: BlobView }): Html {
  const { view } = props;
  const url = blobUrl(view.repo, { rev: view.commit, path: view.path });
  const source = view.markdown?.plain === true;
  return (
    <div class="file-header">
      <Breadcrumbs repo={view.repo} commit={view.commit} path={view.path} />
      <p class="file-actions">
        <button type="button" data-copy-text={view.path} hidden>Copy path</button>
        <a href={rawUrl(view.repo, { rev: view.commit, path: view.path })}>Raw</a>
        {view.lines === null
          ? null
          : <a href={blameUrl(view.repo, { rev: view.commit, path: view.path })}>Blame</a>}
        <a href={commitsUrl(view.repo, { rev: view.commit, path: view.path })}>History</a>
        <a href={source ? `${url}?plain=1` : url}>Permalink</a>
        <button type="button" data-citation={`${view.repo}@${view.commit} ${view.path}`} hidden>
          Copy citation
        </button>
        {view.lines === null || !(view.markdown === null || source)
          ? null
          : <button type="button" data-wrap aria-pressed="false" hidden>Wrap lines</button>}
        {view.markdown === null || view.lines === null ? null : (
          <span class="view-toggle">
            <a href={url} aria-current={source ? undefined : "page"}>Rendered</a>
            <a href={`${url}?plain=1`} aria-current={source ? "page" : undefined}>Source</a>
          </span>
        )}
      </p>
    </div>
  );
}

/** The file page. */
export function BlobPage(props: { viewer: Viewer; view: BlobView }): Html {
  const { view } = props;
  const parent = view.path.includes("/") ? view.path.slice(0, view.path.lastIndexOf("/")) : "";
  return (
    <Layout title={`${view.path} · ${view.repo}`} viewer={props.viewer}>
      <h1>{view.repo}</h1>
      <Tabs repo={view.repo} current="files" rev={view.commit} />
      <p class="muted">
        At <ShortSha sha={view.commit} /> ·{" "}
        <a href={treeUrl(view.repo, { rev: view.commit, dir: parent })}>folder</a>
      </p>
      <FileHeader view={view} />
      {view.target === null ? null : (
        <p class="notice">
          A symbolic link to{" "}
          <a href={blobUrl(view.repo, { rev: view.commit, path: view.target })}>{view.target}</a>
        </p>
      )}
      {view.notice === null ? null : (
        <p class="notice">
          <code>{view.notice.code}</code> {view.notice.message}
        </p>
      )}
      <FileBody view={view} />
    </Layout>
  );
}

// The file's text: rendered Markdown, or its numbered lines.
function FileBody(props: { view: BlobView }): Html | null {
  const { view } = props;
  if (view.lines === null) return null;
  const url = blobUrl(view.repo, { rev: view.commit, path: view.path });
  if (view.markdown !== null && !view.markdown.plain && view.markdown.html !== null) {
    return (
      <>
        <article class="markdown-body">{raw(view.markdown.html)}</article>
        {view.nextStart === null ? null : (
          <p class="notice">
            Rendered up to line {view.nextStart - 1};{" "}
            <a href={`${url}?plain=1&start=${view.nextStart}`}>the source goes on</a>.
          </p>
        )}
      </>
    );
  }
  const query = view.markdown === null ? "" : "plain=1&";
  // Names link only where the symbol index reads the language (a definition can be found).
  const named = view.markdown === null &&
    (grammarLanguageOf(view.path) ?? patternLanguageOf(view.path)) !== null;
  const links = named ? { left: IDENTIFIER_LINKS_MAX } : undefined;
  const table = (
    <table class="code">
      <tbody>
        {codeRows(view.lines, {
          firstLine: view.firstLine,
          highlighted: view.highlighted,
          links,
        })}
      </tbody>
    </table>
  );
  return (
    <>
      {view.outline === null ? table : (
        <div class="with-outline">
          {table}
          <Outline view={view} outline={view.outline} />
        </div>
      )}
      {view.nextStart === null ? null : (
        <p>
          <a href={`${url}?${query}start=${view.nextStart}`}>Lines from {view.nextStart}</a>
        </p>
      )}
    </>
  );
}

// The file's definitions, each a link to its line: on this page an anchor,
// past it the page of the file that starts there.
function Outline(props: { view: BlobView; outline: FileOutline }): Html {
  const { view, outline } = props;
  const url = blobUrl(view.repo, { rev: view.commit, path: view.path });
  const shownUpTo = view.firstLine + (view.lines?.length ?? 0);
  const href = (line: number) =>
    line >= view.firstLine && line < shownUpTo ? `#L${line}` : `${url}?start=${line}#L${line}`;
  return (
    <nav class="outline" aria-label="Outline">
      <h2>Outline</h2>
      {outline.symbols === null
        ? (
          <p class="muted">
            {outline.index === "not_ready"
              ? "The symbol index of this version is not ready."
              : "No symbols were extracted from this file."}
          </p>
        )
        : outline.symbols.length === 0
        ? <p class="muted">No definitions.</p>
        : (
          <ul>
            {outline.symbols.map((symbol) => (
              <li class={symbol.container === null ? undefined : "member"}>
                <a href={href(symbol.startLine)} title={`${symbol.kind}, line ${symbol.startLine}`}>
                  {symbol.name}
                </a>{" "}
                <span class="muted">{symbol.kind}</span>
              </li>
            ))}
          </ul>
        )}
      {outline.truncated ? <p class="muted">The first {outline.symbols?.length} only.</p> : null}
    </nav>
  );
}
