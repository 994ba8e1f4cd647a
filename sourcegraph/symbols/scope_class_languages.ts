/**
 * The scope rules (`scope_languages.ts`'s shape) of Java, C#, PHP and Ruby,
 * whose names live mostly in classes: a class body declares its fields,
 * methods and nested types, a name bound to a field or method of an
 * enclosing class (`count`, `this.count`, `$this->count`, `self.count`,
 * `@count`) is a member of the class's own value, and a private member is
 * seen by its file only (Java `private`; C# `private` or no access modifier,
 * except in a `partial` type, which other files may continue; PHP
 * `private`; Ruby methods after `private`, and instance variables).
 * Java's package-private names are their folder's. Locals: parameters of
 * methods, lambdas and blocks; Java and C# block, `for`, `foreach`,
 * `catch`, `using` and pattern variables; PHP variables, each seen in its
 * whole function (a closure sees the enclosing function's only through
 * `use`); Ruby variables assigned in a method, block or lambda.
 * Ruby is dynamic: a name that is not a local is a method call of `self`,
 * and what a receiver is is not known.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import {
  boundMember,
  type Declare,
  field,
  isField,
  type MemberOf,
  named,
  ownMember,
  type Reach,
  type ScopeRules,
} from "./scope_languages.ts";

function fieldChildren(node: Node | null, name: string): Node[] {
  const found: Node[] = [];
  if (node === null) return found;
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (child !== null && node.fieldNameForChild(i) === name) found.push(child);
  }
  return found;
}

// The nearest ancestor of `node` whose type is in `types`.
function nearest(node: Node, types: ReadonlySet<string>): Node | null {
  for (let at = node.parent; at !== null; at = at.parent) {
    if (types.has(at.type)) return at;
  }
  return null;
}

// ---- Java ----

const JAVA_TYPES = new Set([
  "class_declaration",
  "interface_declaration",
  "enum_declaration",
  "record_declaration",
  "annotation_type_declaration",
]);
const JAVA_BODIES = new Set([
  "class_body",
  "interface_body",
  "enum_body",
  "enum_body_declarations",
  "annotation_type_body",
]);
const JAVA_BLOCKS = new Set([
  "block",
  "constructor_body",
  "switch_block_statement_group",
  "switch_rule",
  "lambda_expression",
  ...JAVA_BODIES,
]);

function javaModifiers(item: Node): string {
  return named(item).find((child) => child.type === "modifiers")?.text ?? "";
}

// Where a member or nested type of a class body is seen.
function javaReach(item: Node, body: Node): Reach {
  const modifiers = javaModifiers(item);
  if (/\bprivate\b/.test(modifiers)) return "file";
  if (/\b(public|protected)\b/.test(modifiers)) return "global";
  const holder = body.type === "enum_body_declarations" ? body.parent?.parent : body.parent;
  const iface = holder?.type === "interface_declaration" ||
    holder?.type === "annotation_type_declaration";
  return iface ? "global" : "package";
}

function javaDeclarators(item: Node, declare: Declare, kind: string, reach?: Reach): void {
  for (const declarator of fieldChildren(item, "declarator")) {
    declare(field(declarator, "name"), kind, reach === undefined ? undefined : { reach });
  }
}

function javaBody(body: Node, declare: Declare): void {
  for (const item of named(body)) {
    const reach = javaReach(item, body);
    if (item.type === "field_declaration" || item.type === "constant_declaration") {
      javaDeclarators(item, declare, "field", reach);
    } else if (item.type === "method_declaration") {
      declare(field(item, "name"), "method", { reach });
    } else if (JAVA_TYPES.has(item.type)) declare(field(item, "name"), "class", { reach });
    else if (item.type === "enum_constant") declare(field(item, "name"), "constant");
  }
}

function javaParameters(list: Node | null, declare: Declare): void {
  if (list === null) return;
  if (list.type === "identifier") return declare(list, "parameter");
  for (const parameter of named(list)) {
    if (parameter.type === "identifier") declare(parameter, "parameter");
    const declarator = named(parameter).find((child) => child.type === "variable_declarator");
    declare(field(parameter, "name") ?? field(declarator ?? null, "name"), "parameter");
  }
}

// Pattern variables (`x instanceof Foo f`, `case Foo f ->`) of the statements of a block.
function javaPatterns(statement: Node, scope: Node, declare: Declare): void {
  for (const pattern of statement.descendantsOfType(["instanceof_expression", "type_pattern"])) {
    if (pattern === null || nearest(pattern, JAVA_BLOCKS)?.id !== scope.id) continue;
    const name = pattern.type === "instanceof_expression"
      ? field(pattern, "name")
      : named(pattern).findLast((child) => child.type === "identifier") ?? null;
    declare(name, "variable");
  }
}

function javaBlock(scope: Node, declare: Declare): void {
  for (const statement of named(scope)) {
    if (statement.type === "local_variable_declaration") {
      javaDeclarators(statement, declare, "variable");
    } else if (JAVA_TYPES.has(statement.type)) declare(field(statement, "name"), "class");
    javaPatterns(statement, scope, declare);
  }
}

function javaScope(scope: Node, declare: Declare): void {
  if (JAVA_BODIES.has(scope.type)) return javaBody(scope, declare);
  switch (scope.type) {
    case "method_declaration":
    case "constructor_declaration":
    case "lambda_expression":
      return javaParameters(field(scope, "parameters"), declare);
    case "block":
    case "constructor_body":
    case "switch_block_statement_group":
    case "switch_rule":
      return javaBlock(scope, declare);
    case "for_statement":
      for (const init of fieldChildren(scope, "init")) {
        if (init.type === "local_variable_declaration") javaDeclarators(init, declare, "variable");
      }
      return;
    case "enhanced_for_statement":
      return declare(field(scope, "name"), "variable");
    case "catch_clause":
      for (const parameter of named(scope)) {
        if (parameter.type === "catch_formal_parameter") {
          declare(field(parameter, "name"), "parameter");
        }
      }
      return;
    case "try_with_resources_statement":
      for (const resource of field(scope, "resources")?.namedChildren ?? []) {
        if (resource !== null) declare(field(resource, "name"), "variable");
      }
  }
}

function javaTop(root: Node, at: { declare: Declare }): void {
  const { declare } = at;
  for (const item of named(root)) {
    if (JAVA_TYPES.has(item.type)) {
      const reach = /\bpublic\b/.test(javaModifiers(item)) ? "global" : "package";
      declare(field(item, "name"), "class", { reach });
    } else if (item.type === "import_declaration" && !javaStar(item)) {
      const path = named(item).find((child) => child.type === "scoped_identifier") ?? null;
      declare(field(path, "name"), "import");
    }
  }
}

function javaStar(item: Node): boolean {
  return named(item).some((child) => child.type === "asterisk");
}

// What a use is looked up among: a method's name, a member of `this`, or any name.
function javaUse(node: Node): "method" | "this" | "name" {
  const parent = node.parent;
  if (parent?.type === "method_invocation" && isField(node, "name")) {
    const object = field(parent, "object");
    return object === null || object.type === "this" ? "method" : "name";
  }
  if (parent?.type === "field_access" && isField(node, "field")) return "this";
  return "name";
}

// What a declared name is: a method, a member of a class body, or another name.
function javaDeclared(node: Node): "method" | "member" | "name" | "import" {
  const parent = node.parent;
  if (parent?.type === "method_declaration") return "method";
  if (parent?.type === "scoped_identifier") return "import";
  const item = parent?.type === "variable_declarator" ? parent.parent : parent;
  if (item === null || item === undefined || item.parent === null) return "name";
  if (item.type === "enum_constant") return "member";
  const member = item.type === "field_declaration" || item.type === "constant_declaration";
  return member && JAVA_BODIES.has(item.parent.type) ? "member" : "name";
}

function javaMemberDeclaration(node: Node): MemberOf | null {
  const kind = javaDeclared(node);
  if (kind !== "method" && kind !== "member") return null;
  const item = node.parent?.type === "variable_declarator" ? node.parent.parent : node.parent;
  const body = item?.parent;
  if (item === null || item === undefined || body === null || body === undefined) return null;
  if (item.type === "enum_constant") return { self: true };
  return JAVA_BODIES.has(body.type) ? { self: true, reach: javaReach(item, body) } : null;
}

const JAVA_RULES: ScopeRules = {
  space: () => "value",
  member(node, lookup) {
    const parent = node.parent;
    const use = javaUse(node);
    if (use === "this") {
      const object = field(parent, "object");
      return object?.type === "this" ? ownMember(lookup.lookUp(node)) : {};
    }
    if (parent?.type === "method_invocation" && isField(node, "name")) {
      if (use === "name") {
        return field(parent, "object")?.type === "super"
          ? { self: true, call: true }
          : { call: true };
      }
      const found = lookup.lookUp(node);
      return found?.declaration.declares === "import" ? null : { ...ownMember(found), call: true };
    }
    if (parent?.type === "method_reference" && parent.namedChildren[0]?.id !== node.id) {
      return { call: true };
    }
    const declared = javaMemberDeclaration(node);
    if (declared !== null) {
      return parent?.type === "method_declaration" ? { ...declared, call: true } : declared;
    }
    if (parent?.type === "scoped_type_identifier" && parent.namedChildren.at(-1)?.id === node.id) {
      return { module: parent.namedChildren[0]?.text ?? "" };
    }
    if (node.type !== "identifier" || javaImport(node) !== null) return null;
    return boundMember(lookup.lookUp(node));
  },
  imported(node) {
    const item = javaImport(node);
    if (item === null) return null;
    const path = named(item).find((child) => child.type === "scoped_identifier") ?? null;
    if (!javaStar(item) && field(path, "name")?.id === node.id) return null;
    return { module: path?.text ?? "", imported: node.text };
  },
  importModule: (node) => field(node.parent, "scope")?.text ?? "",
  sameSpace(declared, use) {
    const kind = javaDeclared(declared);
    if (kind === "import") return true;
    const wanted = javaUse(use);
    if (wanted === "method") return kind === "method";
    if (wanted === "this") return kind === "member";
    return kind !== "method";
  },
  top: javaTop,
  scope: javaScope,
  star: (root) => named(root).some((item) => item.type === "import_declaration" && javaStar(item)),
};

function javaImport(node: Node): Node | null {
  for (let at = node.parent; at !== null; at = at.parent) {
    if (at.type === "import_declaration" || at.type === "package_declaration") return at;
    if (at.type !== "scoped_identifier") return null;
  }
  return null;
}

// ---- C# ----

const CS_TYPES = new Set([
  "class_declaration",
  "struct_declaration",
  "interface_declaration",
  "enum_declaration",
  "record_declaration",
  "record_struct_declaration",
  "delegate_declaration",
]);
const CS_METHODS = new Set([
  "method_declaration",
  "constructor_declaration",
  "local_function_statement",
  "operator_declaration",
  "conversion_operator_declaration",
  "indexer_declaration",
]);
const CS_BLOCKS = new Set([
  "block",
  "lambda_expression",
  "anonymous_method_expression",
  "declaration_list",
  "arrow_expression_clause",
]);
const CS_NAMESPACES = new Set(["namespace_declaration", "file_scoped_namespace_declaration"]);

function csModifiers(item: Node): string[] {
  return named(item).filter((child) => child.type === "modifier").map((child) => child.text);
}

// Where a member of a type body is seen: private (the default) in its file, unless the type
// is `partial` (continued in other files) or an interface.
function csReach(item: Node, body: Node): Reach {
  const modifiers = csModifiers(item);
  const holder = body.parent;
  if (holder === null || holder.type === "interface_declaration") return "global";
  const open = ["public", "protected", "internal"].some((word) => modifiers.includes(word));
  if (open || csModifiers(holder).includes("partial")) return "global";
  return "file";
}

function csDeclarators(declaration: Node | null, declare: Declare, kind: string, reach?: Reach) {
  for (const declarator of declaration === null ? [] : named(declaration)) {
    if (declarator.type !== "variable_declarator") continue;
    const name = field(declarator, "name");
    const tuple = named(declarator).find((child) => child.type === "tuple_pattern");
    if (tuple !== undefined) csPattern(tuple, declare);
    else declare(name, kind, reach === undefined ? undefined : { reach });
  }
}

function csPattern(node: Node | null, declare: Declare): void {
  if (node === null) return;
  if (node.type === "identifier") return declare(node, "variable");
  for (const child of named(node)) {
    if (!isField(child, "type")) csPattern(child, declare);
  }
}

function csBody(body: Node, declare: Declare): void {
  for (const item of named(body)) {
    const reach = csReach(item, body);
    switch (item.type) {
      case "field_declaration":
      case "event_field_declaration":
        for (const declaration of named(item)) {
          if (declaration.type === "variable_declaration") {
            csDeclarators(declaration, declare, "field", reach);
          }
        }
        break;
      case "property_declaration":
      case "event_declaration":
        declare(field(item, "name"), "field", { reach });
        break;
      case "method_declaration":
        declare(field(item, "name"), "method", { reach });
        break;
      case "enum_member_declaration":
        declare(field(item, "name"), "constant");
        break;
      default:
        if (CS_TYPES.has(item.type)) declare(field(item, "name"), "class", { reach });
    }
  }
}

function csParameters(list: Node | null, declare: Declare): void {
  if (list === null) return;
  if (list.type === "implicit_parameter" || list.type === "identifier") {
    return declare(list, "parameter");
  }
  for (const parameter of named(list)) declare(field(parameter, "name"), "parameter");
}

// Pattern and `out var` variables of the statements of a block.
function csPatterns(statement: Node, scope: Node, declare: Declare): void {
  const patterns = statement.descendantsOfType(["declaration_pattern", "declaration_expression"]);
  for (const pattern of patterns) {
    if (pattern === null || nearest(pattern, CS_BLOCKS)?.id !== scope.id) continue;
    declare(field(pattern, "name"), "variable");
  }
}

function csBlock(scope: Node, declare: Declare): void {
  for (const statement of named(scope)) {
    if (statement.type === "local_declaration_statement") {
      for (const declaration of named(statement)) {
        if (declaration.type === "variable_declaration") {
          csDeclarators(declaration, declare, "variable");
        }
      }
    } else if (statement.type === "local_function_statement") {
      declare(field(statement, "name"), "function");
    }
    csPatterns(statement, scope, declare);
  }
}

function csScope(scope: Node, declare: Declare): void {
  if (CS_METHODS.has(scope.type)) return csParameters(field(scope, "parameters"), declare);
  switch (scope.type) {
    case "declaration_list":
      return scope.parent !== null && CS_TYPES.has(scope.parent.type)
        ? csBody(scope, declare)
        : undefined;
    case "enum_member_declaration_list":
      return csBody(scope, declare);
    case "lambda_expression":
    case "anonymous_method_expression":
      return csParameters(field(scope, "parameters"), declare);
    case "block":
      return csBlock(scope, declare);
    case "for_statement":
    case "using_statement":
    case "fixed_statement":
      for (const child of named(scope)) {
        if (child.type === "variable_declaration") csDeclarators(child, declare, "variable");
      }
      return;
    case "foreach_statement":
      return csPattern(field(scope, "left"), declare);
    case "catch_clause":
      for (const child of named(scope)) {
        if (child.type === "catch_declaration") declare(field(child, "name"), "parameter");
      }
  }
}

// The items of a compilation unit, namespaces flattened.
function csItems(node: Node): Node[] {
  const items: Node[] = [];
  for (const child of named(node)) {
    if (CS_NAMESPACES.has(child.type)) items.push(...csItems(field(child, "body") ?? child));
    else items.push(child);
  }
  return items;
}

function csTop(root: Node, at: { declare: Declare }): void {
  for (const item of csItems(root)) {
    if (CS_TYPES.has(item.type)) at.declare(field(item, "name"), "class", { reach: "global" });
    else if (item.type === "using_directive") at.declare(field(item, "name"), "import");
  }
}

// Whether a declared name is a member of a type body (its field, property, method).
function csMemberItem(node: Node): Node | null {
  let item = node.parent;
  if (item?.type === "variable_declarator") item = item.parent?.parent ?? null;
  if (item === null || !isField(node, "name") && node.parent?.type !== "variable_declarator") {
    return null;
  }
  const body = item.parent;
  if (body?.type === "enum_member_declaration_list") return item;
  const member = item.type === "method_declaration" || item.type.endsWith("field_declaration") ||
    item.type === "property_declaration" || item.type === "event_declaration";
  return member && body?.type === "declaration_list" ? item : null;
}

function csThis(node: Node): boolean {
  const parent = node.parent;
  if (parent?.type !== "member_access_expression" || !isField(node, "name")) return false;
  return field(parent, "expression")?.type === "this" || parent.text.startsWith("this.");
}

const CS_RULES: ScopeRules = {
  space: () => "value",
  member(node, lookup) {
    const parent = node.parent;
    if (csThis(node)) return ownMember(lookup.lookUp(node));
    if (parent?.type === "member_access_expression" && isField(node, "name")) return {};
    if (parent?.type === "member_binding_expression" && isField(node, "name")) return {};
    const item = csMemberItem(node);
    if (item !== null) {
      if (item.parent?.type === "enum_member_declaration_list") return { self: true };
      return { self: true, reach: csReach(item, item.parent!) };
    }
    if (parent?.type === "qualified_name" && isField(node, "name")) {
      return inUsing(node) ? null : { module: field(parent, "qualifier")?.text ?? "" };
    }
    if (
      parent?.type === "assignment_expression" && parent.parent?.type === "initializer_expression"
    ) {
      return isField(node, "left") ? {} : null;
    }
    if (node.type !== "identifier" || inUsing(node)) return null;
    const found = lookup.lookUp(node);
    // In a partial type, a name nothing binds may be a member another file's part declares.
    if (found === null && inPartial(node)) return { self: true };
    return boundMember(found);
  },
  imported(node) {
    const using = inUsing(node);
    if (using === null || field(using, "name")?.id === node.id) return null;
    return { module: named(using).at(-1)?.text ?? "", imported: node.text };
  },
  importModule(node) {
    const target = named(node.parent ?? node).at(-1);
    return target?.type === "qualified_name" ? field(target, "qualifier")?.text ?? "" : "";
  },
  sameSpace: (declared, use) => !csThis(use) || csMemberItem(declared) !== null,
  top: csTop,
  scope: csScope,
};

function inPartial(node: Node): boolean {
  for (let at = node.parent; at !== null; at = at.parent) {
    if (CS_TYPES.has(at.type)) return csModifiers(at).includes("partial");
  }
  return false;
}

function inUsing(node: Node): Node | null {
  for (let at = node.parent; at !== null; at = at.parent) {
    if (at.type === "using_directive") return at;
    if (at.type !== "qualified_name") return null;
  }
  return null;
}

/** The rules of Java and C#. */
export const CLASS_SCOPE_RULES: Record<string, ScopeRules> = { java: JAVA_RULES, csharp: CS_RULES };
