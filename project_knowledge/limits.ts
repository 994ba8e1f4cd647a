/**
 * The provider's fixed limits, all part of the provider's contract. Callers cannot change them.
 *
 * @module
 */

/** Most files stored in one index. */
export const MAX_INDEXED_FILES = 4096;
/** Largest indexed source file, in bytes. */
export const MAX_FILE_BYTES = 256 * 1024;
/** Most source bytes stored in one index. */
export const MAX_CORPUS_BYTES = 64 * 1024 * 1024;
/** Work budget of one index call, in milliseconds. */
export const INDEX_BUDGET_MS = 20_000;
/** Most bytes captured from one Git subprocess. */
export const MAX_GIT_OUTPUT_BYTES = 8 * 1024 * 1024;
/** Default and bounds of search's `limit`. */
export const SEARCH_DEFAULT_LIMIT = 5;
/** Largest accepted search `limit`. */
export const SEARCH_MAX_LIMIT = 20;
/** Work budget of one search, in milliseconds. */
export const SEARCH_BUDGET_MS = 5_000;
/** Most ranked candidates one search examines. */
export const SEARCH_MAX_CANDIDATES = 16_384;
/** Largest serialized tool result, in bytes. */
export const MAX_RESULT_BYTES = 16 * 1024;
/** Default number of lines a read returns. */
export const READ_DEFAULT_LINES = 48;
/** Most lines one read returns. */
export const READ_MAX_LINES = 200;
/** Lines longer than this (bytes, without LF) are not indexed. */
export const MAX_INDEXED_LINE_BYTES = 4096;
/** A chunk ends after this many lines. */
export const CHUNK_MAX_LINES = 40;
/** A chunk ends once its text reaches this many bytes. */
export const CHUNK_MAX_BYTES = 3072;
/** Longest accepted search query, in characters. */
export const MAX_QUERY_CHARS = 16_384;
/** Longest accepted repository-relative path, in characters. */
export const MAX_PATH_CHARS = 4096;
