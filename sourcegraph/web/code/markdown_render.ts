/**
 * Markdown rendered for the pages with markdown-it, CommonMark with GitHub's
 * tables and strikethrough: raw HTML is off (a tag shows as its text), and a
 * link survives only when it is relative, a fragment, or `http:`, `https:`
 * or `mailto:` (anything else, `javascript:` and `data:` among them, is
 * shown as text). Relative links are rewritten to pages pinned to the
 * commit (`resolve`), relative images to the raw route; an image elsewhere
 * becomes a link to it, so a page never loads anything from another site.
 * Headings get ids prefixed `user-content-`, and `#fragment` links follow,
 * so a document's ids never clash with the page's own.
 *
 * @module
 */

import MarkdownIt, { type RendererRule as Rule } from "markdown-it";
import { posix } from "node:path";

/** Where a link in a document points, once resolved against its folder. */
export type LinkTarget =
  | { kind: "page"; path: string; fragment: string | null }
  | { kind: "folder"; path: string }
  | { kind: "image"; path: string };

/** How a document is rendered. */
export interface MarkdownOptions {
  /** The folder the document is in ("" for the top), which relative links start from. */
  folder: string;
  /** The URL of a target inside the repository. */
  resolve: (target: LinkTarget) => string;
}

// What the rules read of one rendering (markdown-it hands its env to each).
type RenderState = MarkdownOptions & { ids: Map<string, number> };

function stateOf(env: unknown): RenderState {
  return (env as { state: RenderState }).state;
}

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const OUTSIDE = new Set(["http", "https", "mailto"]);

function isOutside(url: string): boolean {
  return url.startsWith("//") || OUTSIDE.has(SCHEME.exec(url)?.[1]?.toLowerCase() ?? "");
}

// A relative link as a path from the top of the repository, or null when it
// leaves the repository or is not a path.
function repositoryPath(url: string, folder: string): { path: string; folder: boolean } | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(url);
  } catch {
    return null;
  }
  if (decoded.includes("\0") || decoded.includes("\\")) return null;
  const fromTop = decoded.startsWith("/");
  const joined = fromTop || folder === "" ? decoded.replace(/^\/+/, "") : `${folder}/${decoded}`;
  const normal = posix.normalize(joined === "" ? "." : joined);
  if (normal === ".." || normal.startsWith("../")) return null;
  const path = normal === "." || normal === "./" ? "" : normal.replace(/\/+$/, "");
  return { path, folder: decoded.endsWith("/") || path === "" };
}

// Heading slugs are lower case; a link's fragment is matched the same way.
function headingId(fragment: string): string {
  return `user-content-${fragment.toLowerCase()}`;
}

// Where a link goes, or null to show it as text.
function linkHref(url: string, env: RenderState): string | null {
  if (url.startsWith("#")) return `#${headingId(url.slice(1))}`;
  if (isOutside(url)) return url;
  if (SCHEME.test(url)) return null;
  const [withoutFragment, fragment = null] = url.split("#", 2);
  const at = repositoryPath(withoutFragment.split("?", 1)[0], env.folder);
  if (at === null) return null;
  if (at.folder) return env.resolve({ kind: "folder", path: at.path });
  const lines = fragment !== null && /^L\d+(?:-L\d+)?$/.test(fragment);
  return env.resolve({
    kind: "page",
    path: at.path,
    fragment: fragment === null ? null : lines ? fragment : headingId(fragment),
  });
}

const linkOpen: Rule = (tokens, index, options, env, self) => {
  const token = tokens[index];
  const href = linkHref(String(token.attrGet("href") ?? ""), stateOf(env));
  token.attrs = href === null ? null : [["href", href]];
  if (href !== null && isOutside(href)) token.attrSet("rel", "nofollow noopener noreferrer");
  return self.renderToken(tokens, index, options);
};

const image: Rule = (tokens, index, options, env, self) => {
  const token = tokens[index];
  const src = String(token.attrGet("src") ?? "");
  const alt = self.renderInlineAsText(token.children ?? [], options, env);
  const escape = (text: string) => md.utils.escapeHtml(text);
  if (isOutside(src)) {
    return `<a href="${escape(src)}" rel="nofollow noopener noreferrer">${escape(alt || src)}</a>`;
  }
  const { folder, resolve } = stateOf(env);
  const at = SCHEME.test(src) ? null : repositoryPath(src.split(/[?#]/, 1)[0], folder);
  if (at === null || at.folder) return escape(alt);
  const url = resolve({ kind: "image", path: at.path });
  return `<img src="${escape(url)}" alt="${escape(alt)}" loading="lazy">`;
};

// GitHub's heading slugs: lower case, punctuation dropped, spaces to `-`, repeats numbered.
const headingOpen: Rule = (tokens, index, options, env, self) => {
  const text = tokens[index + 1]?.children
    ? self.renderInlineAsText(tokens[index + 1].children!, options, env)
    : "";
  const slug = text.toLowerCase().trim().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
  const { ids } = stateOf(env);
  const seen = ids.get(slug) ?? 0;
  ids.set(slug, seen + 1);
  tokens[index].attrSet("id", headingId(seen === 0 ? slug : `${slug}-${seen}`));
  return self.renderToken(tokens, index, options);
};

const md = new MarkdownIt("default", { html: false, linkify: true, typographer: false });
md.validateLink = (url) => !SCHEME.test(url.trim()) || isOutside(url.trim());
md.renderer.rules.link_open = linkOpen;
md.renderer.rules.image = image;
md.renderer.rules.heading_open = headingOpen;

/** `source` rendered to HTML, links resolved by `options`. */
export function renderMarkdown(source: string, options: MarkdownOptions): string {
  return md.render(source, { state: { ...options, ids: new Map() } });
}
