/**
 * One tags-query match as a definition: the node of its `@definition.<kind>`
 * capture, the name from `@name` (or from the identifier inside a C-family
 * `@declarator`), the kind in our words, and a C++ `@local.scope` qualifier
 * as its container. C-family rules keep what universal-ctags calls
 * definitions: a function declarator counts only under a function
 * definition (whose whole node becomes the range), a struct, union, class or
 * enum only with a body, a declaration only when not `extern` and not a
 * prototype.
 *
 * @module
 */

import type { Node, QueryCapture } from "web-tree-sitter";
import type { SymbolKind } from "./defined_symbol.ts";

/** A definition a match found. */
export interface TagDefinition {
  /** The definition's node (its lines are the symbol's). */
  node: Node;
  name: string;
  kind: SymbolKind;
  /** An explicit qualifier (`A` of `A::f`), or null. */
  scope: string | null;
}

const KINDS: Record<string, SymbolKind> = {
  function: "function",
  method: "method",
  class: "class",
  interface: "interface",
  type: "type",
  enum: "enum",
  constant: "constant",
  variable: "variable",
  module: "module",
  field: "field",
  macro: "function",
};

// Wrappers between a declarator and the function definition it names.
const DECLARATOR_WRAPPERS = new Set([
  "pointer_declarator",
  "parenthesized_declarator",
  "reference_declarator",
  "attributed_declarator",
]);
const NEEDS_BODY = new Set([
  "struct_specifier",
  "union_specifier",
  "class_specifier",
  "enum_specifier",
]);
const IDENTIFIERS = new Set(["identifier", "field_identifier", "type_identifier"]);
// Bodies whose variables are locals, not definitions.
const FUNCTIONS = new Set([
  "function_definition",
  "function_declaration",
  "method_definition",
  "method_declaration",
  "function_item",
  "arrow_function",
  "function_expression",
  "lambda",
]);

/** The definition in `captures`, or null when the match is no definition we keep. */
export function definitionOf(captures: readonly QueryCapture[]): TagDefinition | null {
  let definition: { node: Node; kind: SymbolKind } | null = null;
  let nameNode: Node | null = null;
  let declarator: Node | null = null;
  let scope: string | null = null;
  for (const capture of captures) {
    if (capture.name.startsWith("definition.")) {
      const kind = KINDS[capture.name.slice("definition.".length)];
      if (kind !== undefined) definition = { node: capture.node, kind };
    } else if (capture.name === "name") nameNode = capture.node;
    else if (capture.name === "declarator") declarator = capture.node;
    else if (capture.name === "local.scope") scope = capture.node.text;
    else if (capture.name === "qualified") {
      const qualified = qualifiedName(capture.node);
      nameNode = qualified.name;
      scope = qualified.scope;
    }
  }
  if (definition === null) return null;
  let { node } = definition;
  // A node's type is a call into the parser's runtime: asked once.
  const type = node.type;
  if (NEEDS_BODY.has(type) && node.childForFieldName("body") === null) return null;
  if (type === "function_declarator") {
    const whole = definitionAround(node);
    if (whole === null) return null;
    node = whole;
  }
  if (declarator !== null) {
    if (node.type === "declaration" && isExtern(node)) return null;
    nameNode = declaredName(declarator, definition.kind === "type");
  }
  if (nameNode === null) return null;
  if (definition.kind === "variable" && insideFunction(node)) return null;
  // `operator ()` and `operator()` are one name (a C++ operator's name starts with `operator`:
  // only such a name's node type is asked for).
  const text = nameNode.text;
  const name = text.startsWith("operator") && nameNode.type === "operator_name"
    ? text.replace(/\s+/g, "")
    : text;
  return { node, name, kind: definition.kind, scope };
}

// The last name of a C++ `A::B::name` (of a template, its name) and what qualifies it.
function qualifiedName(qualified: Node): { name: Node | null; scope: string | null } {
  let name: Node | null = qualified;
  for (
    let depth = 0;
    name !== null && name.type === "qualified_identifier" && depth < 32;
    depth++
  ) {
    name = name.childForFieldName("name");
  }
  if (name !== null && name.type === "template_function") name = name.childForFieldName("name");
  if (name === null) return { name: null, scope: null };
  const scope = qualified.text.slice(0, name.startIndex - qualified.startIndex)
    .replace(/::\s*$/, "").replace(/\s+/g, "");
  return { name, scope: scope === "" ? null : scope };
}

// The function definition a function declarator names, or null for a prototype.
function definitionAround(declarator: Node): Node | null {
  let up = declarator.parent;
  while (up !== null && DECLARATOR_WRAPPERS.has(up.type)) up = up.parent;
  return up !== null && up.type === "function_definition" ? up : null;
}

function insideFunction(node: Node): boolean {
  for (let up = node.parent; up !== null; up = up.parent) {
    if (FUNCTIONS.has(up.type)) return true;
  }
  return false;
}

function isExtern(declaration: Node): boolean {
  return declaration.namedChildren.some((child) =>
    child?.type === "storage_class_specifier" && child.text === "extern"
  );
}

// The identifier a C-family declarator declares; null for a function
// prototype (a declarator whose function part names the identifier directly),
// except in a typedef, where that names a function type.
function declaredName(declarator: Node, typedef: boolean): Node | null {
  let node: Node | null = declarator;
  for (let depth = 0; node !== null && depth < 32; depth++) {
    if (IDENTIFIERS.has(node.type)) return node;
    if (node.type === "function_declarator") {
      const inner = node.childForFieldName("declarator");
      if (!typedef && inner !== null && IDENTIFIERS.has(inner.type)) return null;
      node = inner;
      continue;
    }
    node = node.childForFieldName("declarator") ??
      node.namedChildren.find((child) =>
        child !== null && (child.type.endsWith("declarator") || IDENTIFIERS.has(child.type))
      ) ?? null;
  }
  return null;
}
