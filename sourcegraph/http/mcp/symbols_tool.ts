/**
 * `symbols`: where a name is defined. Looks names up in the symbol index of
 * one commit (exact name by default, a prefix, or RE2 over names), or of
 * several repositories each at its pinned commit, and answers each
 * definition's kind, container, language, path, lines and first line, ranked
 * so the likeliest definition comes first; a lookup that finds nothing says
 * what it may have meant.
 *
 * @module
 */

import { z } from "zod";
import { pageWithin } from "../../render/repository_json.ts";
import {
  decodeFanoutSymbolCursor,
  decodeSymbolCursor,
  encodeFanoutSymbolCursor,
  encodeSymbolCursor,
  fanoutSymbolsJson,
  symbolsJson,
} from "../../render/symbols_json.ts";
import { SYMBOL_KINDS } from "../../symbols/defined_symbol.ts";
import { SYMBOLS_MAX_FIRST } from "../../service/repository_symbols.ts";
import { PAGE_DEFAULT_MAX_BYTES, pageBytes, paths, repoSelection, revision } from "./arguments.ts";
import { singleRepository } from "../../service/repository_pins.ts";
import { defineTool, READ_ONLY, type ToolContext } from "./tool.ts";

const INPUT = {
  repo: repoSelection,
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
  after: z.string().min(1).max(16384).optional().describe("next_cursor of the previous page."),
  max_bytes: pageBytes,
};

type SymbolsArgs = z.infer<z.ZodObject<typeof INPUT>>;

/** `symbols`. */
export const symbolsTool = defineTool({
  name: "symbols",
  description:
    "Finds where a name is defined (exact name, prefix, or RE2 over names) in one repository at a pinned commit, or in several: repo as a list or a glob like `org/*`, or left out for every repository you can see. Answers kind, container, language, path, lines and signature (first line), likeliest first; none found: nearest names.",
  input: INPUT,
  uses: ["symbols", "symbolsAcrossRepositories"],
  annotations: READ_ONLY,
  run: (args, context) => {
    const single = singleRepository(args.repo);
    return single === null
      ? acrossRepositories(args, context)
      : oneRepository(single, args, context);
  },
});

// The lookup's options in the domain's names.
function lookup(args: SymbolsArgs) {
  return {
    revision: args.revision,
    query: args.query,
    match: args.match,
    ignoreCase: args.ignore_case,
    kinds: args.kinds,
    languages: args.languages,
    paths: args.paths,
    glob: args.glob,
    first: args.first,
  };
}

async function oneRepository(
  repo: string,
  args: SymbolsArgs,
  { calls, caller }: ToolContext<"symbols">,
): Promise<string[]> {
  const after = args.after === undefined ? undefined : decodeSymbolCursor(args.after);
  const page = await calls.symbols(caller, { ...lookup(args), repo, after });
  return [cutByOffset(page.symbols, {
    start: after?.offset ?? 0,
    nextOffset: page.nextOffset,
    maxBytes: args.max_bytes,
    cursorAt: (offset) => encodeSymbolCursor({ commit: page.commit, offset }),
    json: (items) => symbolsJson({ ...page, symbols: items, nextOffset: null }),
  })];
}

async function acrossRepositories(
  args: SymbolsArgs,
  { calls, caller, fanoutCharge }: ToolContext<"symbolsAcrossRepositories">,
): Promise<string[]> {
  const after = args.after === undefined ? undefined : decodeFanoutSymbolCursor(args.after);
  const page = await calls.symbolsAcrossRepositories(caller, {
    ...lookup(args),
    repos: args.repo === undefined ? null : [args.repo].flat(),
    after,
  }, fanoutCharge);
  return [cutByOffset(page.symbols, {
    start: after?.offset ?? 0,
    nextOffset: page.nextOffset,
    maxBytes: args.max_bytes,
    cursorAt: (offset) => encodeFanoutSymbolCursor({ pins: page.pins, offset }),
    json: (items) => fanoutSymbolsJson({ ...page, symbols: items, nextOffset: null }),
  })];
}

// A page of definitions (the first at `start` of the lookup's list) within
// `maxBytes`: cut short, it continues at the first definition it left out.
function cutByOffset<T extends object>(
  items: T[],
  at: {
    start: number;
    nextOffset: number | null;
    maxBytes?: number;
    cursorAt: (offset: number) => string;
    json: (items: T[]) => Record<string, unknown>;
  },
): string {
  const position = new Map(items.map((item, i) => [item, at.start + i]));
  return pageWithin<T>({
    items,
    hasMore: at.nextOffset !== null,
    nextCursor: at.nextOffset === null ? null : at.cursorAt(at.nextOffset),
  }, {
    maxBytes: at.maxBytes ?? PAGE_DEFAULT_MAX_BYTES,
    json: ({ items, nextCursor }) => {
      const json = at.json(items);
      return nextCursor === null ? json : { ...json, has_more: true, next_cursor: nextCursor };
    },
    cursorOf: (item) => at.cursorAt(position.get(item)! + 1),
  });
}
