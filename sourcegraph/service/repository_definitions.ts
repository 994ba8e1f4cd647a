/**
 * `definition`: what the name at a position refers to, search-based, at a
 * pinned commit. The position is read as `read` reads it (the same
 * refusals); its name is resolved in its own file first (locals and
 * parameters of its scopes, then the file's declarations), imports are
 * followed to the modules they name (`name_resolution.ts`), and a name
 * still unresolved is looked up in the commit's symbol index (a definition
 * in the same file first, then the index's ranking). Files outside the
 * caller's path groups are never read and never answered.
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import { SourcegraphError } from "../errors.ts";
import { signatureLine } from "../search/symbol_search.ts";
import type { ReferenceParser, ReferencesRequest } from "./name_references.ts";
import { holdsWord, NameResolver, resolveAt, type ResolvedDeclaration } from "./name_resolution.ts";
import type { NameOrigin, RepositoryReads } from "./repository_reads.ts";
import type { RepositorySymbols } from "./repository_symbols.ts";

/** A definition lookup at a position (a references request's position fields). */
export type DefinitionRequest = Pick<
  ReferencesRequest,
  "repo" | "revision" | "path" | "line" | "column" | "symbol"
>;

/** A declaration found, with its first line. */
export interface FoundDefinition extends ResolvedDeclaration {
  /** The declaration's line at the commit (cut as `symbols` cuts it), null when unreadable. */
  signature: string | null;
}

/** What the name at a position refers to. */
export interface DefinitionAnswer {
  repo: string;
  commit: string;
  name: string;
  origin: { path: string; line: number };
  /** Null when neither the files nor the symbol index say. */
  definition: FoundDefinition | null;
  /** Whether the symbol index could be asked (`not_ready`: it is still being built). */
  index: "ready" | "not_ready" | "unused";
}

/** Definitions of the repositories a caller may see. */
export class RepositoryDefinitions {
  #reads: RepositoryReads;
  #symbols: RepositorySymbols;
  #parser: ReferenceParser;

  /** Definitions read through `reads`, the index through `symbols`, parsed by `parser`. */
  constructor(
    reads: RepositoryReads,
    options: { symbols: RepositorySymbols; parser: ReferenceParser },
  ) {
    this.#reads = reads;
    this.#symbols = options.symbols;
    this.#parser = options.parser;
  }

  /** The declaration the name at the request's position refers to. */
  async definition(caller: Caller, request: DefinitionRequest): Promise<DefinitionAnswer> {
    const origin = await this.#reads.nameOrigin(caller, request);
    const { name } = origin;
    const commit = origin.origin.commit;
    const answer = (definition: FoundDefinition | null, index: DefinitionAnswer["index"]) => ({
      repo: origin.repo,
      commit,
      name,
      origin: { path: request.path, line: request.line },
      definition,
      index,
    });
    const files = { text: origin.visibleText, exists: origin.visible };
    const resolved = await resolveAt(new NameResolver(this.#parser, files), {
      path: request.path,
      name,
      line: request.line,
      column: origin.offset,
    });
    if (resolved !== null) return answer(await signed(origin, resolved), "unused");
    try {
      const page = await this.#symbols.symbols(caller, {
        repo: request.repo,
        revision: commit,
        query: name,
        first: 50,
        suggestions: false,
      });
      // A member of no evident receiver: likeliest a member of a type the file names.
      const text = await origin.visibleText(request.path) ?? "";
      const named = (symbol: { container: string | null }) =>
        symbol.container !== null && holdsWord(text, symbol.container);
      const chosen = page.symbols.find((symbol) => symbol.path === request.path) ??
        page.symbols.find(named) ?? page.symbols[0];
      if (chosen === undefined) return answer(null, "ready");
      return answer({
        path: chosen.path,
        line: chosen.startLine,
        column: null,
        kind: chosen.kind,
        container: chosen.container,
        via: "index",
        signature: chosen.signature,
      }, "ready");
    } catch (error) {
      if (error instanceof SourcegraphError && error.code === "INDEX_NOT_READY") {
        return answer(null, "not_ready");
      }
      throw error;
    }
  }
}

async function signed(origin: NameOrigin, found: ResolvedDeclaration): Promise<FoundDefinition> {
  const text = await origin.visibleText(found.path);
  const line = text?.split("\n")[found.line - 1];
  return {
    ...found,
    signature: line === undefined ? null : signatureLine(line.replace(/\r$/, "")),
  };
}
