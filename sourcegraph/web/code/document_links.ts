/**
 * Where the links of a rendered document go: the pages' URL scheme applied
 * to the link targets the Markdown renderer finds, pinned to the document's
 * commit.
 *
 * @module
 */

import { blobUrl, isMarkdownPath, rawUrl, treeUrl } from "../../render/page_urls.ts";
import type { LinkTarget } from "./markdown_render.ts";

/**
 * Where the links of a document at `commit` of `repo` go, pinned to the
 * commit: pages, folders, and raw images; a line fragment into a Markdown
 * file opens its source.
 */
export function documentLinks(repo: string, commit: string): (target: LinkTarget) => string {
  return (target) => {
    switch (target.kind) {
      case "folder":
        return treeUrl(repo, { rev: commit, dir: target.path });
      case "image":
        return rawUrl(repo, { rev: commit, path: target.path });
      case "page": {
        const url = blobUrl(repo, { rev: commit, path: target.path });
        if (target.fragment === null) return url;
        const lines = target.fragment.startsWith("L") && isMarkdownPath(target.path);
        return `${url}${lines ? "?plain=1" : ""}#${target.fragment}`;
      }
    }
  };
}
