/**
 * A definition found in a file: what the symbol index stores per blob and
 * what the `symbols` tool answers.
 *
 * @module
 */

/** The kinds of definitions, the same words for every language. */
export const SYMBOL_KINDS = [
  "function",
  "method",
  "class",
  "interface",
  "type",
  "enum",
  "constant",
  "variable",
  "module",
  "field",
] as const;

/** One kind of definition. */
export type SymbolKind = typeof SYMBOL_KINDS[number];

/** Kinds whose definitions enclose others (a method's class, a function's module). */
export const CONTAINER_KINDS: ReadonlySet<SymbolKind> = new Set([
  "class",
  "interface",
  "enum",
  "module",
]);

/** One definition in one file. */
export interface DefinedSymbol {
  name: string;
  kind: SymbolKind;
  /** First line of the definition (1-based). */
  startLine: number;
  /** Last line of the definition (1-based, at least `startLine`). */
  endLine: number;
  /** The name of the enclosing class, module or type, or null at the top level. */
  container: string | null;
}
