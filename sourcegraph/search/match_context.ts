/**
 * Lines of context around the matching lines a search shows (as `rg -B/-A`),
 * so an agent sees a signature or a body without a second call. Taken after
 * the search, from the blobs of the files it returns, and only until the
 * text gathered would fill the answer anyway (the renderer cuts at its view
 * cap): a search with context costs at most that many more bytes read.
 *
 * @module
 */

import { splitLines } from "../../shared/text.ts";
import type { MirrorObjects } from "../git/mirror_objects.ts";
import type { FileMatches } from "./code_search.ts";
import { searchableText } from "./searchable_text.ts";

/** One line shown for context, not itself a shown match. */
export interface ContextLine {
  number: number;
  text: string;
}

/** Most lines of context on each side of a match. */
export const MAX_CONTEXT_LINES = 20;
// Files larger than this are shown without context (a search reads at most 8 MiB a file too).
const MAX_BLOB_BYTES = 8 * 1024 * 1024;

/**
 * The context lines of each file of `files` (by path), `before` and `after`
 * each shown match, merged where ranges touch; stops once `maxBytes` of
 * text were gathered (the files after that get none).
 */
export async function matchContext(
  objects: MirrorObjects,
  at: { commit: string; files: readonly FileMatches[] },
  options: { before: number; after: number; maxBytes: number },
): Promise<Map<string, ContextLine[]>> {
  const context = new Map<string, ContextLine[]>();
  let gathered = 0;
  for (const file of at.files) {
    if (gathered >= options.maxBytes) break;
    const lines = await fileLines(objects, at.commit, file.path);
    if (lines === null) continue;
    const shown = new Set(file.lines.map((line) => line.number));
    const wanted = new Set<number>();
    for (const { number } of file.lines) {
      const from = Math.max(1, number - options.before);
      const to = Math.min(lines.length, number + options.after);
      for (let n = from; n <= to; n++) if (!shown.has(n)) wanted.add(n);
    }
    const around = [...wanted].sort((a, b) => a - b).map((number) => ({
      number,
      text: lines[number - 1],
    }));
    for (const line of around) gathered += line.text.length + 8;
    for (const line of file.lines) gathered += line.text.length + 8;
    context.set(file.path, around);
  }
  return context;
}

async function fileLines(
  objects: MirrorObjects,
  commit: string,
  path: string,
): Promise<string[] | null> {
  const entry = await objects.lookup(commit, path);
  if (entry?.kind !== "file") return null;
  const bytes = await objects.blob(entry.oid, MAX_BLOB_BYTES);
  const text = bytes === null ? null : searchableText(bytes);
  return text === null ? null : splitLines(text);
}
