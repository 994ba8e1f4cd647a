/**
 * `symbols`: where a name is defined. Looks names up in the symbol index of
 * one commit (exact name by default, a prefix, or RE2 over names) and
 * answers each definition's kind, container, language, path and lines,
 * ranked so the likeliest definition comes first.
 *
 * @module
 */

import { z } from "zod";
import { pageWithin } from "../../render/repository_json.ts";
import { decodeSymbolCursor, encodeSymbolCursor, symbolsJson } from "../../render/symbols_json.ts";
import { SYMBOL_KINDS } from "../../symbols/defined_symbol.ts";
import { SYMBOLS_MAX_FIRST } from "../../service/repository_symbols.ts";
import type { SymbolDefinition } from "../../search/index/commit_symbols.ts";
import { PAGE_DEFAULT_MAX_BYTES, pageBytes, paths, repo, revision } from "./arguments.ts";
import { defineTool } from "./tool.ts";

/** `symbols`. */
export const symbolsTool = defineTool({
  name: "symbols",
  description:
    "Finds where a name is defined at one commit (exact name, prefix, or RE2 over names): kind, container, language, path, start_line..end_line (read that range for the definition). Likeliest first.",
  input: {
    repo,
    query: z.string().min(1).max(1024).describe(
      "A name, e.g. `parseConfig` (a prefix, or RE2 like `^parse[A-Z]`, per match).",
    ),
    match: z.enum(["exact", "prefix", "regex"]).optional().describe("Default exact."),
    ignore_case: z.boolean().optional().describe("For exact and prefix; default false."),
    kinds: z.array(z.enum(SYMBOL_KINDS)).max(SYMBOL_KINDS.length).optional().describe(
      "Only these kinds; default all.",
    ),
    languages: z.array(z.string().min(1).max(32)).max(32).optional().describe(
      'Only these languages, e.g. ["typescript", "python"] (lower case); default all.',
    ),
    paths,
    glob: z.array(z.string().min(1).max(1024)).max(64).optional().describe(
      'Path globs; `!` excludes, e.g. ["!**/tests/**"].',
    ),
    revision,
    first: z.number().int().min(1).max(SYMBOLS_MAX_FIRST).optional().describe(
      `Per page (1 to ${SYMBOLS_MAX_FIRST}; default 20).`,
    ),
    after: z.string().min(1).max(512).optional().describe("next_cursor of the previous page."),
    max_bytes: pageBytes,
  },
  run: async (args, { service, caller }) => {
    const after = args.after === undefined ? undefined : decodeSymbolCursor(args.after);
    const page = await service.symbols(caller, {
      repo: args.repo,
      revision: args.revision,
      query: args.query,
      match: args.match,
      ignoreCase: args.ignore_case,
      kinds: args.kinds,
      languages: args.languages,
      paths: args.paths,
      glob: args.glob,
      first: args.first,
      after,
    });
    const start = after?.offset ?? 0;
    const position = new Map(page.symbols.map((symbol, i) => [symbol, start + i]));
    return [pageWithin<SymbolDefinition>({
      items: page.symbols,
      hasMore: page.nextOffset !== null,
      nextCursor: page.nextOffset === null
        ? null
        : encodeSymbolCursor({ commit: page.commit, offset: page.nextOffset }),
    }, {
      maxBytes: args.max_bytes ?? PAGE_DEFAULT_MAX_BYTES,
      json: ({ items, nextCursor }) => {
        const json = symbolsJson({ ...page, symbols: items, nextOffset: null });
        return nextCursor === null ? json : { ...json, has_more: true, next_cursor: nextCursor };
      },
      cursorOf: (symbol) =>
        encodeSymbolCursor({ commit: page.commit, offset: position.get(symbol)! + 1 }),
    })];
  },
});
