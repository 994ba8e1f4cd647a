/**
 * The role of one identifier node that names the symbol looked up, from its
 * place in the syntax tree: `definition` (the tags queries capture it as a
 * definition's name), `import` (inside an import, use or `require` clause),
 * `call` (the callee of a call, directly or as a member's last part),
 * `type` (in a type position), `write` (the left side of an assignment or
 * of a declaration with an initializer), otherwise `read`. Node types are
 * those of the shipped grammars; a language's own spellings sit in one set
 * each so that adding one is a line.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";

/** What an occurrence of the name does there. */
export type ReferenceRole = "definition" | "import" | "call" | "type" | "write" | "read";

// Leaf nodes that spell a name (strings and comments never are one of these).
const NAME_NODES = new Set([
  "identifier",
  "type_identifier",
  "field_identifier",
  "property_identifier",
  "private_property_identifier",
  "shorthand_property_identifier",
  "shorthand_property_identifier_pattern",
  "package_identifier",
  "namespace_identifier",
  "statement_identifier",
  "constant",
  "name",
  "implicit_parameter",
  "instance_variable",
  "class_variable",
]);
const IMPORTS = new Set([
  "import_statement",
  "import_from_statement",
  "future_import_statement",
  "import_declaration",
  "import_spec",
  "use_declaration",
  "extern_crate_declaration",
  "namespace_use_declaration",
  "using_directive",
  "preproc_include",
]);
// A member access whose last part is the name: `a.f`, `a::f`, `a->f`.
const MEMBERS = new Set([
  "member_expression",
  "field_expression",
  "attribute",
  "selector_expression",
  "scoped_identifier",
  "qualified_identifier",
  "generic_function",
  "call",
]);
const CALLS = new Set([
  "call_expression",
  "call",
  "new_expression",
  "method_invocation",
  "invocation_expression",
  "macro_invocation",
  "function_call_expression",
  "member_call_expression",
  "object_creation_expression",
]);
const TYPES = new Set([
  "type_annotation",
  "type_arguments",
  "type_parameters",
  "generic_type",
  "type",
  "type_identifier",
  "predefined_type",
  "return_type",
  "implements_clause",
  "extends_type_clause",
  "type_alias_declaration",
]);
const ASSIGNMENTS = new Set([
  "assignment_expression",
  "augmented_assignment_expression",
  "assignment",
  "augmented_assignment",
  "assignment_statement",
  "compound_assignment_expr",
]);

/** Whether `node` is a leaf that spells a name. */
export function isNameNode(node: Node): boolean {
  return NAME_NODES.has(node.type) && node.namedChildCount === 0;
}

/**
 * Whether `node` is a string's whole text naming a member by index: `Type['name']` (an indexed
 * access type) or `value['name']` (TypeScript and JavaScript).
 */
export function isIndexedName(node: Node): boolean {
  if (node.type !== "string_fragment") return false;
  const string = node.parent;
  if (string?.type !== "string" || string.namedChildCount !== 1) return false;
  const holder = string.parent;
  if (holder?.type === "subscript_expression") {
    return holder.childForFieldName("index")?.id === string.id;
  }
  return holder?.type === "literal_type" && holder.parent?.type === "lookup_type" &&
    holder.parent.namedChildren[1]?.id === holder.id;
}

/**
 * The role of `node`, a name node; `definitionNames` holds the start
 * indexes of the names the tags queries captured as definitions.
 */
export function referenceRole(node: Node, definitionNames: ReadonlySet<number>): ReferenceRole {
  if (definitionNames.has(node.startIndex)) return "definition";
  if (inImport(node)) return "import";
  if (isCallee(node)) return "call";
  if (inType(node)) return "type";
  if (isWritten(node)) return "write";
  return "read";
}

function inImport(node: Node): boolean {
  for (let up = node.parent; up !== null; up = up.parent) {
    if (IMPORTS.has(up.type)) return true;
    if (up.type === "call_expression" || up.type === "call") {
      // `require("x")` and `const { f } = require("x")` bind the name from a module.
      if (up.childForFieldName("function")?.text === "require") return true;
    }
    if (up.type === "variable_declarator") {
      const value = up.childForFieldName("value");
      if (
        value?.type === "call_expression" && value.childForFieldName("function")?.text === "require"
      ) {
        return true;
      }
    }
  }
  return false;
}

function isCallee(node: Node): boolean {
  let callee: Node = node;
  let up = node.parent;
  while (
    up !== null && MEMBERS.has(up.type) && !CALLS.has(up.type) && lastNamed(up)?.id === callee.id
  ) {
    callee = up;
    up = up.parent;
  }
  if (up === null || !CALLS.has(up.type)) return false;
  const target = up.childForFieldName("function") ?? up.childForFieldName("name") ??
    up.childForFieldName("macro") ?? up.childForFieldName("constructor") ??
    up.childForFieldName("type") ?? up.childForFieldName("method");
  return target?.id === callee.id;
}

function lastNamed(node: Node): Node | null {
  const children = node.namedChildren.filter((child) => child !== null);
  return children.at(-1) ?? null;
}

function inType(node: Node): boolean {
  if (node.type === "type_identifier") return true;
  for (let up = node.parent; up !== null; up = up.parent) {
    if (TYPES.has(up.type)) return true;
    // Types do not hold statements: past one, the name is in code.
    if (up.type.endsWith("statement") || up.type.endsWith("block") || up.type === "program") break;
  }
  return false;
}

function isWritten(node: Node): boolean {
  const up = node.parent;
  if (up === null) return false;
  if (ASSIGNMENTS.has(up.type)) return up.childForFieldName("left")?.id === node.id;
  if (up.type === "variable_declarator") {
    return up.childForFieldName("name")?.id === node.id && up.childForFieldName("value") !== null;
  }
  if (up.type === "let_declaration") {
    return up.childForFieldName("pattern")?.id === node.id &&
      up.childForFieldName("value") !== null;
  }
  if (up.type === "expression_list") {
    // Go: `a, b := f()` and `a = 1` hold their left names in a list.
    const statement = up.parent;
    return statement !== null &&
      (statement.type === "short_var_declaration" || statement.type === "assignment_statement") &&
      statement.childForFieldName("left")?.id === up.id;
  }
  return false;
}
