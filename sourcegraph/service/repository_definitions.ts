/**
 * `definition`: what the name at a position refers to, search-based, at a
 * pinned commit. The position is read as `read` reads it (the same
 * refusals); its name is resolved in its own file first (locals and
 * parameters of its scopes, then the file's declarations), imports are
 * followed to the modules they name (`name_resolution.ts`), and a name
 * still unresolved is looked up in the commit's symbol index (a definition
 * in the same file first, then the index's ranking). Files outside the
 * caller's path groups are never read and never answered. At a commit with
 * an uploaded SCIP index, the index answers first (precisely).
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import { SourcegraphError } from "../errors.ts";
import type { ScipSource } from "../search/scip/scip_derived.ts";
import { signatureLine } from "../search/symbol_search.ts";
import type { ReferenceParser, ReferencesRequest } from "./name_references.ts";
import {
  definitionAt,
  holdsWord,
  isScriptPath,
  madeWith,
  NameResolver,
  type ResolvedDeclaration,
} from "./name_resolution.ts";
import type { NameOrigin, RepositoryReads } from "./repository_reads.ts";
import type { Receiver } from "../symbols/name_bindings.ts";
import type { RepositorySymbols } from "./repository_symbols.ts";

/** A definition lookup at a position (a references request's position fields). */
export type DefinitionRequest = Pick<
  ReferencesRequest,
  "repo" | "revision" | "path" | "line" | "column" | "symbol"
>;

/** A declaration found, with its first line. */
export interface FoundDefinition extends Omit<ResolvedDeclaration, "via"> {
  /** How it was found: as `ResolvedDeclaration`'s, or `scip` (the commit's uploaded SCIP index). */
  via: ResolvedDeclaration["via"] | "scip";
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
  /** Set when the commit's SCIP index answered: its tool and commit. */
  precise: ScipSource | null;
  /**
   * When the symbol index answered: the other definitions of the name it
   * holds (at most `DEFINITION_MAX_ALTERNATIVES`), any of which the name may
   * mean; empty otherwise.
   */
  alternatives: DefinitionPlace[];
}

/** A definition the symbol index holds. */
export interface DefinitionPlace {
  path: string;
  line: number;
  kind: string;
  container: string | null;
}

/** Most other definitions an answer from the symbol index lists. */
export const DEFINITION_MAX_ALTERNATIVES = 20;

type FoundDefinitionPlace = Omit<FoundDefinition, "signature">;

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
    const answer = (
      definition: FoundDefinition | null,
      index: DefinitionAnswer["index"],
      precise: ScipSource | null = null,
      alternatives: DefinitionPlace[] = [],
    ): DefinitionAnswer => ({
      repo: origin.repo,
      commit,
      name,
      origin: { path: request.path, line: request.line },
      definition,
      index,
      precise,
      alternatives,
    });
    const scip = await this.#preciseDefinition(caller, { request, origin });
    if (scip !== null) return answer(scip.definition, "unused", scip.source);
    const files = { text: origin.visibleText, exists: origin.visible };
    const resolver = new NameResolver(this.#parser, files);
    const resolved = await definitionAt(resolver, {
      path: request.path,
      name,
      line: request.line,
      column: origin.offset,
    });
    // A scoped name not declared in its file (a global, an import, a member) is the index's.
    if (resolved !== null && resolved.scope?.declared !== false) {
      return answer(await signed(origin, resolved), "unused");
    }
    const at = { path: request.path, name, line: request.line, column: origin.offset };
    const enclosing = resolved === null
      ? await enclosingTypeMember(resolver, at) ?? await fileTypeMember(resolver, at)
      : null;
    if (enclosing !== null) return answer(await signed(origin, enclosing), "unused");
    try {
      const found = await this.#fromIndex(caller, { request, origin });
      if (found === null) return answer(null, "ready");
      const typed = await typedLiteral(resolver, { origin, chosen: found.chosen });
      return answer(typed ?? found.chosen, "ready", null, found.alternatives);
    } catch (error) {
      if (error instanceof SourcegraphError && error.code === "INDEX_NOT_READY") {
        return answer(null, "not_ready");
      }
      throw error;
    }
  }

  // The symbol index's definitions of the name: the likeliest, and the others
  // (INDEX_NOT_READY while the commit's index is being built).
  async #fromIndex(
    caller: Caller,
    at: { request: DefinitionRequest; origin: NameOrigin },
  ): Promise<{ chosen: FoundDefinition; alternatives: DefinitionPlace[] } | null> {
    const { request, origin } = at;
    const page = await this.#symbols.symbols(caller, {
      repo: request.repo,
      revision: origin.origin.commit,
      query: origin.name,
      first: 50,
      suggestions: false,
    });
    // A member of no evident receiver: likeliest a member of a type the file names.
    const text = await origin.visibleText(request.path) ?? "";
    // (A constructor, named as its class, is no member the class's name leads to.)
    const named = (symbol: { name: string; container: string | null }) =>
      symbol.container !== null && symbol.container !== symbol.name &&
      holdsWord(text, symbol.container);
    const chosen = page.symbols.find((symbol) => symbol.path === request.path) ??
      page.symbols.find(named) ?? page.symbols[0];
    if (chosen === undefined) return null;
    const alternatives = page.symbols.filter((symbol) => symbol !== chosen)
      .slice(0, DEFINITION_MAX_ALTERNATIVES)
      .map((symbol) => ({
        path: symbol.path,
        line: symbol.startLine,
        kind: symbol.kind,
        container: symbol.container,
      }));
    return {
      chosen: {
        path: chosen.path,
        line: chosen.startLine,
        column: null,
        kind: chosen.kind,
        container: chosen.container,
        via: "index",
        signature: chosen.signature,
      },
      alternatives,
    };
  }

  // The definition the commit's SCIP index records for the name at the position, if it has one.
  async #preciseDefinition(
    caller: Caller,
    at: { request: DefinitionRequest; origin: NameOrigin },
  ): Promise<{ definition: FoundDefinition; source: ScipSource } | null> {
    const { request, origin } = at;
    const line = origin.origin.content.replace(/\r?\n$/, "");
    const found = await this.#reads.scipDefinition(caller, {
      repo: request.repo,
      path: request.path,
      revision: origin.origin.commit,
      line: request.line,
      column: Array.from(line.slice(0, origin.offset)).length + 1,
    });
    if (found === null) return null;
    const definition = await signed(origin, {
      path: found.path,
      line: found.line,
      column: found.column - 1,
      kind: found.kind ?? "symbol",
      container: null,
      via: "scip",
    });
    return {
      definition: { ...definition, signature: definition.signature ?? found.signature },
      source: found.source,
    };
  }
}

/**
 * For a member of a value of no evident type (`opts.host`): the member of that name of an
 * anonymous object type annotating a parameter of the enclosing function
 * (`function url(event: Event, opts: { host?: boolean })`), the innermost such function's; null
 * when there is none.
 */
export async function enclosingTypeMember(
  resolver: NameResolver,
  at: { path: string; name: string; line: number; column: number },
): Promise<ResolvedDeclaration | null> {
  let found: ResolvedDeclaration | null = null;
  let from = 0;
  for (const { declaration, declared } of await untypedMemberDeclarations(resolver, at)) {
    const parameter = declared.type === null ? declared.parameter : undefined;
    if (parameter?.to === undefined || at.line < parameter.line || at.line > parameter.to) continue;
    if (found === null || from < parameter.line) [found, from] = [declaration, parameter.line];
  }
  return found;
}

/**
 * For a member of a value of no evident type, outside any function `enclosingTypeMember` answers
 * for: the first member of that name a named type of the asking file declares, before the symbol
 * index (which answers a definition in the same file first, but holds no type literal's members
 * and may lack a file whose symbols ran out of budget); null when there is none.
 */
export async function fileTypeMember(
  resolver: NameResolver,
  at: { path: string; name: string; line: number; column: number },
): Promise<ResolvedDeclaration | null> {
  const named = (await untypedMemberDeclarations(resolver, at))
    .filter(({ declared }) => declared.type !== null);
  // A type declared in a block around the position first (the innermost such block's): another
  // block's type of the same name is not seen there.
  let found = named.find(({ declared }) => declared.within === undefined);
  let from = 0;
  for (const each of named) {
    const block = each.declared.within;
    if (block === undefined || at.line < block.from || at.line > block.to) continue;
    if (block.from > from) [found, from] = [each, block.from];
  }
  return (found ?? named[0])?.declaration ?? null;
}

type MemberDeclared = Extract<Receiver, { kind: "declaration" }>;

// For a member of a value of no evident type at `at`: the file's declarations of members of that
// name (object literals' aside); none for another occurrence.
async function untypedMemberDeclarations(
  resolver: NameResolver,
  at: { path: string; name: string; line: number; column: number },
): Promise<{ declaration: ResolvedDeclaration; declared: MemberDeclared }[]> {
  const occurrence = await resolver.occurrenceAt(at.path, at);
  const receiver = occurrence?.binding?.kind === "member" ? occurrence.binding.receiver : null;
  // A value a call the file writes made (`const store = createStore<State>(...)`): of a type that
  // call names, when one declares the member.
  const made = receiver === null ? undefined : madeWith(receiver);
  if (made === undefined && (receiver?.kind !== "unknown" || receiver.global === true)) return [];
  const analysis = await resolver.analysis(at.path, at.name);
  const found: { declaration: ResolvedDeclaration; declared: MemberDeclared }[] = [];
  for (const each of analysis?.occurrences ?? []) {
    const declared = each.binding?.kind === "member" ? each.binding.receiver : null;
    if (declared?.kind !== "declaration" || declared.literal) continue;
    if (made !== undefined && !made.includes(declared.type ?? "")) continue;
    const { line, column } = each;
    const kind = declared.declares;
    const declaration = { path: at.path, line, column, kind, container: declared.type };
    found.push({ declaration: { ...declaration, via: "member", member: true }, declared });
  }
  return found;
}

// An object literal's property the index answers is defined where the literal's type declares
// it, as it is from the literal itself (`createStore<State>(() => ({ inc }))`: `State`'s `inc`,
// which the index does not hold); null when the answer is no such property.
async function typedLiteral(
  resolver: NameResolver,
  at: { origin: NameOrigin; chosen: FoundDefinition },
): Promise<FoundDefinition | null> {
  const { origin, chosen } = at;
  if (!isScriptPath(chosen.path)) return null;
  const analysis = await resolver.analysis(chosen.path, origin.name);
  const literal = analysis?.occurrences.find((occurrence) => {
    const receiver = occurrence.binding?.kind === "member" ? occurrence.binding.receiver : null;
    return occurrence.line === chosen.line && receiver?.kind === "declaration" &&
      receiver.literal === true;
  });
  if (literal === undefined) return null;
  const { line, column } = literal;
  const typed = await definitionAt(resolver, {
    path: chosen.path,
    name: origin.name,
    line,
    column,
  });
  if (typed?.member !== true || (typed.path === chosen.path && typed.line === chosen.line)) {
    return null;
  }
  return await signed(origin, typed);
}

async function signed(origin: NameOrigin, found: FoundDefinitionPlace): Promise<FoundDefinition> {
  const text = await origin.visibleText(found.path);
  const line = text?.split("\n")[found.line - 1];
  return {
    ...found,
    signature: line === undefined ? null : signatureLine(line.replace(/\r$/, "")),
  };
}
