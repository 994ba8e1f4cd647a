/**
 * The container of each definition of a file: the nearest enclosing
 * definition of a container kind, or a Rust `impl` block (its type), found
 * from the nodes' places in the text instead of a walk up each one's
 * parents. Tree-sitter's parent of a node is found from the root down, so a
 * walk up from a definition cost a descent per level, and a file's
 * thousands of definitions made that a fifth of the query's time (the deno
 * tree in process: 1.0 s of 19 s).
 *
 * Nodes of one tree nest or do not overlap, so a container whose text
 * starts before a definition's and ends after its start encloses it. What
 * the places cannot tell (a definition that starts where a container does
 * and ends where it does, two containers of one range, an empty
 * definition), the walk up the parents answers as before.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import type { SymbolKind } from "./defined_symbol.ts";

/** A container as a definition's symbol names it. */
export interface Container {
  name: string;
  kind: SymbolKind;
}

/** A definition whose container is asked for. */
export interface Enclosed {
  node: Node;
  /** Whether the definition's node spans no text (its place cannot tell what encloses it). */
  empty: boolean;
}

// A node that may enclose definitions: its text's span and what it makes their container.
interface Scope {
  id: number;
  start: number;
  end: number;
  container: () => Container | null;
}

/**
 * The container of each of `definitions` (in their order), given the
 * containers by their nodes' ids (`containers`).
 */
export function enclosingContainers(
  definitions: readonly Enclosed[],
  at: {
    containers: ReadonlyMap<number, Container>;
    /** The containers' nodes. */
    nodes: readonly Node[];
    /** The tree's `impl_item` nodes (Rust), found by the tags query. */
    impls: readonly Node[];
  },
): (Container | null)[] {
  const scopes = scopesOf(at);
  const found: (Container | null)[] = new Array(definitions.length).fill(null);
  if (scopes.length === 0) return found;
  const order = definitions.map((_, index) => index)
    .sort((a, b) => definitions[a].node.startIndex - definitions[b].node.startIndex);
  const open: Scope[] = [];
  let next = 0;
  for (const index of order) {
    const definition = definitions[index];
    const start = definition.node.startIndex;
    // Scopes that start at or before the definition, each inside the one below it on `open`.
    while (next < scopes.length && scopes[next].start <= start) {
      const scope = scopes[next++];
      while (open.length > 0 && open[open.length - 1].end <= scope.start) open.pop();
      open.push(scope);
    }
    while (open.length > 0 && open[open.length - 1].end <= start) open.pop();
    const nearest = definition.empty ? WALK : nearestOpen(open, definition.node);
    found[index] = nearest === WALK
      ? containerByParents(definition.node, at.containers)
      : nearest?.container() ?? null;
  }
  return found;
}

const WALK = Symbol("walk");

// The innermost scope of `open` (scopes that hold `node`'s start, each inside the one below it)
// that encloses `node`; WALK when the places cannot tell.
function nearestOpen(open: readonly Scope[], node: Node): Scope | null | typeof WALK {
  const start = node.startIndex;
  let end: number | undefined;
  for (let index = open.length - 1; index >= 0; index--) {
    const scope = open[index];
    if (scope.id === node.id) continue;
    if (scope.start === start) {
      end ??= node.endIndex;
      // A scope that starts where the definition does and ends sooner is inside it.
      if (scope.end < end) continue;
      if (scope.end === end) return WALK;
    }
    const below = open[index - 1];
    if (below !== undefined && below.start === scope.start && below.end === scope.end) return WALK;
    return scope;
  }
  return null;
}

// The containers' nodes and, where the grammar has them, its `impl_item` nodes, in text order
// (an outer scope before an inner one of the same start); empty nodes enclose nothing.
function scopesOf(
  at: {
    containers: ReadonlyMap<number, Container>;
    nodes: readonly Node[];
    impls: readonly Node[];
  },
): Scope[] {
  const scopes: Scope[] = [];
  const seen = new Set<number>();
  for (const node of at.nodes) {
    const container = at.containers.get(node.id);
    if (container === undefined || seen.has(node.id)) continue;
    seen.add(node.id);
    scopes.push({
      id: node.id,
      start: node.startIndex,
      end: node.endIndex,
      container: () => container,
    });
  }
  for (const node of at.impls) {
    if (at.containers.has(node.id) || seen.has(node.id)) continue;
    seen.add(node.id);
    scopes.push({
      id: node.id,
      start: node.startIndex,
      end: node.endIndex,
      container: () => implType(node),
    });
  }
  return scopes.filter((scope) => scope.end > scope.start)
    .sort((a, b) => a.start - b.start || b.end - a.end);
}

// A Rust `impl` block as a container: its type, as a class.
function implType(node: Node): Container | null {
  const type = node.childForFieldName("type")?.text;
  return type === undefined ? null : { name: type, kind: "class" };
}

/** The container of `node` found by walking up its parents (the nearest of `containers` or an `impl_item`). */
export function containerByParents(
  node: Node,
  containers: ReadonlyMap<number, Container>,
): Container | null {
  for (let up = node.parent; up !== null; up = up.parent) {
    const named = containers.get(up.id);
    if (named !== undefined) return named;
    if (up.type === "impl_item") return implType(up);
  }
  return null;
}
