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
import {
  cursor,
  glob,
  PAGE_DEFAULT_MAX_BYTES,
  pageBytes,
  paths,
  repoSelection,
  revision,
} from "./arguments.ts";
import { singleRepository } from "../../service/repository_pins.ts";
import { fileLink, jsonAnswer, lineNumber, nextCursor, url } from "./answers.ts";
import { defineTool, READ_ONLY, type ToolAnswer, type ToolContext } from "./tool.ts";

const INPUT = {
  repo: repoSelection,
  query: z.string().min(1).max(1024).describe("Name, prefix or RE2 (match)."),
  match: z.enum(["exact", "prefix", "regex"]).optional(),
  ignore_case: z.boolean().optional(),
  kinds: z.array(z.enum(SYMBOL_KINDS)).max(SYMBOL_KINDS.length).optional().describe(
    "Only these kinds (a C struct or union is `class`).",
  ),
  languages: z.array(z.string().min(1).max(32)).max(32).optional().describe("e.g. `go`."),
  paths,
  glob,
  revision,
  first: z.number().int().min(1).max(SYMBOLS_MAX_FIRST).optional(),
  after: cursor(16384),
  max_bytes: pageBytes,
};

const OUTPUT = {
  symbols: z.array(z.object({ name: z.string(), path: z.string(), start_line: lineNumber, url })),
  next_cursor: nextCursor,
};

type SymbolsArgs = z.infer<z.ZodObject<typeof INPUT>>;

/** `symbols`. */
export const symbolsTool = defineTool({
  name: "symbols",
  description:
    "Finds where a name is defined, likeliest first: lines, not bodies (`search` with `after_context` shows a body in the same call).",
  input: INPUT,
  output: OUTPUT,
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
  { calls, caller, pageLink }: ToolContext<"symbols">,
): Promise<ToolAnswer> {
  const after = args.after === undefined ? undefined : decodeSymbolCursor(args.after);
  const page = await calls.symbols(caller, { ...lookup(args), repo, after });
  return linkedSymbols(
    cutByOffset(page.symbols, {
      start: after?.offset ?? 0,
      nextOffset: page.nextOffset,
      maxBytes: args.max_bytes,
      cursorAt: (offset) => encodeSymbolCursor({ commit: page.commit, offset }),
      json: (items) => symbolsJson({ ...page, symbols: items, nextOffset: null }),
    }),
    { pageLink, at: () => ({ repo, commit: page.commit }) },
  );
}

async function acrossRepositories(
  args: SymbolsArgs,
  { calls, caller, fanoutCharge, pageLink }: ToolContext<"symbolsAcrossRepositories">,
): Promise<ToolAnswer> {
  const after = args.after === undefined ? undefined : decodeFanoutSymbolCursor(args.after);
  const page = await calls.symbolsAcrossRepositories(caller, {
    ...lookup(args),
    repos: args.repo === undefined ? null : [args.repo].flat(),
    after,
  }, fanoutCharge);
  const pins = new Map(page.pins.map((pin) => [pin.repo, pin.commit]));
  return linkedSymbols(
    cutByOffset(page.symbols, {
      start: after?.offset ?? 0,
      nextOffset: page.nextOffset,
      maxBytes: args.max_bytes,
      cursorAt: (offset) => encodeFanoutSymbolCursor({ pins: page.pins, offset }),
      json: (items) => fanoutSymbolsJson({ ...page, symbols: items, nextOffset: null }),
    }),
    { pageLink, at: (repo) => ({ repo: repo!, commit: pins.get(repo!)! }) },
  );
}

// The answer of a page of definitions: its JSON, and each definition linked
// to its lines at the commit `at` names for its repository.
function linkedSymbols(
  json: Record<string, unknown>,
  options: {
    pageLink: ToolContext["pageLink"];
    at: (repo: string | undefined) => { repo: string; commit: string };
  },
): ToolAnswer {
  type Listed = { repo?: string; path: string; start_line: number; end_line: number };
  const symbols = (json.symbols as Listed[]).map((symbol) => {
    const { repo, commit } = options.at(symbol.repo);
    return {
      ...symbol,
      ...fileLink(options, repo, {
        commit,
        path: symbol.path,
        start: symbol.start_line,
        end: symbol.end_line,
      }),
    };
  });
  return jsonAnswer(json, { symbols });
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
): Record<string, unknown> {
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
