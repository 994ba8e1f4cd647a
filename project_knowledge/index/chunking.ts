/**
 * Splits a source into chunks of whole lines: the unit that is ranked and
 * returned as a search hit. Lines longer than 4 KiB are left out (and
 * counted); a chunk never spans one, so every hit's lines can be returned.
 *
 * @module
 */

import { splitLines, utf8Length } from "../../shared/text.ts";
import { CHUNK_MAX_BYTES, CHUNK_MAX_LINES, MAX_INDEXED_LINE_BYTES } from "../limits.ts";

/** One chunk: 1-based inclusive line range and its text. */
export interface Chunk {
  /** First line, 1-based. */
  startLine: number;
  /** Last line, inclusive. */
  endLine: number;
  /** The lines joined by LF. */
  text: string;
}

/** A chunked source. */
export interface ChunkedSource {
  /** The chunks in line order. */
  chunks: Chunk[];
  /** Number of lines of the source. */
  lines: number;
  /** Lines left out because they exceed 4 KiB. */
  oversizedLines: number;
}

/** Chunks a source's text. */
export function chunkSource(text: string): ChunkedSource {
  const lines = splitLines(text);
  const chunks: Chunk[] = [];
  let oversizedLines = 0;
  let start = 0; // index of the first line of the open chunk
  let bytes = 0;
  const close = (end: number) => {
    if (end > start) {
      chunks.push({ startLine: start + 1, endLine: end, text: lines.slice(start, end).join("\n") });
    }
  };
  for (let i = 0; i < lines.length; i++) {
    // A line of more than 4096 code units may still fit; count bytes only then.
    const size = lines[i].length * 3 <= MAX_INDEXED_LINE_BYTES
      ? lines[i].length
      : utf8Length(lines[i]);
    if (size > MAX_INDEXED_LINE_BYTES) {
      close(i);
      oversizedLines++;
      start = i + 1;
      bytes = 0;
      continue;
    }
    if (i > start && (i - start >= CHUNK_MAX_LINES || bytes + size > CHUNK_MAX_BYTES)) {
      close(i);
      start = i;
      bytes = 0;
    }
    bytes += size + 1;
  }
  close(lines.length);
  return { chunks, lines: lines.length, oversizedLines };
}
