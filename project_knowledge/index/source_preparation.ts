/**
 * The per-source work of an index run that needs no database: read through
 * the symlink guard, apply the content rules, hash, and (only when the hash
 * differs from the indexed one) chunk and analyze. It runs in a worker so
 * that it overlaps with the SQLite writes on the main thread.
 *
 * @module
 */

import { analyzeText } from "../analysis.ts";
import { chunkSource } from "./chunking.ts";
import { definedNames } from "../../shared/defined_names.ts";
import { readCurrentSource } from "../project/current_source.ts";
import type { SkipReason } from "../project/eligibility.ts";
import type { ProjectRoot } from "../project/project_root.ts";

/** One source to prepare. */
export interface PrepareRequest {
  /** Repository-relative path. */
  path: string;
  /** The hash of the indexed rows, when the source is indexed. */
  knownHash: string | null;
}

/** A chunk ready for insertion: its lines and its analyzed terms. */
export interface PreparedChunk {
  startLine: number;
  endLine: number;
  /** Space-separated terms. */
  terms: string;
  /** Space-separated terms of the names the chunk defines. */
  names: string;
}

/** What preparation found. */
export type PreparedSource =
  | { path: string; kind: "skipped"; reason: SkipReason }
  | { path: string; kind: "unchanged"; hash: string }
  | {
    path: string;
    kind: "changed";
    hash: string;
    bytes: number;
    lines: number;
    oversizedLines: number;
    /** Space-separated terms of the path (every chunk of the source carries them). */
    pathTerms: string;
    chunks: PreparedChunk[];
  };

/** Prepares one source. */
export function prepareSource(root: ProjectRoot, request: PrepareRequest): PreparedSource {
  const current = readCurrentSource(root, request.path, { unchangedHash: request.knownHash });
  if (!current.ok) return { path: request.path, kind: "skipped", reason: current.reason };
  if ("unchanged" in current) return { path: request.path, kind: "unchanged", hash: current.hash };
  const chunked = chunkSource(current.text);
  return {
    path: request.path,
    kind: "changed",
    hash: current.hash,
    bytes: current.bytes,
    lines: chunked.lines,
    oversizedLines: chunked.oversizedLines,
    pathTerms: analyzeText(request.path).join(" "),
    chunks: chunked.chunks.map((chunk) => ({
      startLine: chunk.startLine,
      endLine: chunk.endLine,
      terms: analyzeText(chunk.text).join(" "),
      names: analyzeText(definedNames(request.path, chunk.text).join(" ")).join(" "),
    })),
  };
}
