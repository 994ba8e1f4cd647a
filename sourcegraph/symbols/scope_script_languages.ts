/**
 * The scope rules (`scope_languages.ts`'s shape) of PHP and Ruby. PHP: a
 * variable is its function's (parameters, assignments, `foreach`, `catch`
 * and `list` targets anywhere in the body; a closure sees the enclosing
 * function's variables only through `use`, an arrow function sees them
 * all), `$this->f`, `self::f` and `static::f` are members of the class's
 * own value, a `private` property, method or constant is its file's, and
 * `use` imports a name from a namespace. Ruby: a variable is assigned in
 * a method (or the file), a block or a lambda (a block's assignment of a
 * name the enclosing scope has binds that one), parameters of methods,
 * blocks and lambdas; a name that is no local is a method call of `self`
 * (Ruby is dynamic: what another receiver is is not known), a method after
 * `private` and an instance variable are seen in their file.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import {
  boundMember,
  type Declare,
  field,
  isField,
  named,
  ownMember,
  type Reach,
  type ScopeRules,
} from "./scope_languages.ts";

// ---- PHP ----

const PHP_TYPES = new Set([
  "class_declaration",
  "interface_declaration",
  "trait_declaration",
  "enum_declaration",
]);
const PHP_FUNCTIONS = new Set([
  "function_definition",
  "method_declaration",
  "anonymous_function",
  "arrow_function",
]);
const PHP_MEMBER_ACCESS = new Set([
  "member_access_expression",
  "nullsafe_member_access_expression",
  "member_call_expression",
  "nullsafe_member_call_expression",
]);
const PHP_SCOPED_ACCESS = new Set([
  "scoped_call_expression",
  "scoped_property_access_expression",
  "class_constant_access_expression",
]);

function phpReach(item: Node): Reach {
  const visibility = named(item).find((child) => child.type === "visibility_modifier");
  return visibility?.text === "private" ? "file" : "global";
}

// The `name` of a `$name` (its variable_name node's child).
function phpVariable(node: Node | null): Node | null {
  if (node?.type !== "variable_name") return null;
  const name = named(node).find((child) => child.type === "name") ?? null;
  return name?.text === "this" ? null : name;
}

// The variables a function body (or the file's code) assigns or uses, not looking into
// nested functions, classes or closures (but into a closure's `use` and an arrow function).
function phpVariables(node: Node, declare: Declare): void {
  for (const child of named(node)) {
    if (child.type === "variable_name") {
      const parent = child.parent;
      if (parent?.type !== "property_element") declare(phpVariable(child), "variable");
      continue;
    }
    if (child.type === "anonymous_function") {
      const uses = named(child).find((part) => part.type === "anonymous_function_use_clause");
      if (uses !== undefined) phpVariables(uses, declare);
      continue;
    }
    if (child.type === "arrow_function") {
      const body = field(child, "body");
      if (body !== null) phpVariables(body, declare);
      continue;
    }
    if (PHP_FUNCTIONS.has(child.type) || PHP_TYPES.has(child.type)) continue;
    if (child.type === "formal_parameters") continue;
    phpVariables(child, declare);
  }
}

function phpParameters(list: Node | null, declare: Declare): void {
  for (const parameter of list === null ? [] : named(list)) {
    declare(phpVariable(field(parameter, "name")), "parameter");
  }
}

function phpFunction(scope: Node, declare: Declare): void {
  phpParameters(field(scope, "parameters"), declare);
  if (scope.type === "arrow_function") return;
  const body = field(scope, "body");
  if (body === null) return;
  if (scope.type !== "anonymous_function") return phpVariables(body, declare);
  // A closure's `use` names are the enclosing function's.
  const captured = new Set<string>();
  const uses = named(scope).find((part) => part.type === "anonymous_function_use_clause");
  if (uses !== undefined) phpVariables(uses, (node) => node !== null && captured.add(node.text));
  phpVariables(body, (node, kind) => {
    if (node !== null && !captured.has(node.text)) declare(node, kind);
  });
}

function phpBody(body: Node, declare: Declare): void {
  for (const item of named(body)) {
    const reach = phpReach(item);
    if (item.type === "method_declaration") {
      declare(field(item, "name"), "method", { reach });
      // Promoted constructor parameters are properties too.
      for (const parameter of named(field(item, "parameters") ?? item)) {
        if (parameter.type !== "property_promotion_parameter") continue;
        declare(phpVariable(field(parameter, "name")), "field", { reach: phpReach(parameter) });
      }
    } else if (item.type === "property_declaration") {
      for (const element of named(item)) {
        if (element.type !== "property_element") continue;
        declare(phpVariable(field(element, "name")), "field", { reach });
      }
    } else if (item.type === "const_declaration") {
      for (const element of named(item)) {
        if (element.type === "const_element") {
          declare(element.namedChildren[0], "constant", { reach });
        }
      }
    } else if (item.type === "enum_case") declare(field(item, "name"), "constant");
  }
}

function phpScope(scope: Node, declare: Declare): void {
  if (PHP_FUNCTIONS.has(scope.type)) return phpFunction(scope, declare);
  if (scope.type === "declaration_list" || scope.type === "enum_declaration_list") {
    return phpBody(scope, declare);
  }
}

function phpUses(item: Node, declare: Declare): void {
  for (const clause of item.descendantsOfType("namespace_use_clause")) {
    if (clause === null) continue;
    const alias = field(clause, "alias");
    if (alias !== null) {
      declare(alias, "import");
      continue;
    }
    const path = named(clause).find((part) => part.type !== "name" || !isField(part, "alias"));
    const name = path?.type === "qualified_name" ? path.namedChildren.at(-1) ?? null : path ?? null;
    declare(name, "import");
  }
}

function phpTop(root: Node, at: { declare: Declare }): void {
  const { declare } = at;
  const items = (node: Node): Node[] =>
    named(node).flatMap((child) =>
      child.type === "namespace_definition" && field(child, "body") !== null
        ? items(field(child, "body")!)
        : [child]
    );
  for (const item of items(root)) {
    if (PHP_TYPES.has(item.type)) declare(field(item, "name"), "class");
    else if (item.type === "function_definition") declare(field(item, "name"), "function");
    else if (item.type === "namespace_use_declaration") phpUses(item, declare);
    else if (item.type === "const_declaration") {
      for (const element of named(item)) declare(element.namedChildren[0], "constant");
    }
  }
  // The file's own code: its variables are the file's.
  phpVariables(root, (node, kind) => declare(node, kind, { reach: "file" }));
}

// A member's name in an access: `$x->f`, `$x->f()`, `A::f()`, `A::$f`, `A::F`.
function phpAccess(node: Node): Node | null {
  let parent = node.parent;
  if (parent?.type === "variable_name") parent = parent.parent;
  if (parent === null) return null;
  if (PHP_MEMBER_ACCESS.has(parent.type)) return isField(node, "name") ? parent : null;
  if (!PHP_SCOPED_ACCESS.has(parent.type)) return null;
  const first = parent.namedChildren[0];
  return first !== null && first.id !== node.id && first.id !== node.parent?.id ? parent : null;
}

function phpMemberDeclaration(node: Node): Node | null {
  let item = node.parent;
  if (item?.type === "variable_name") item = item.parent;
  if (item?.type === "property_element" || item?.type === "const_element") item = item.parent;
  if (item?.type === "property_promotion_parameter") return item;
  const body = item?.parent?.type;
  const member = body === "declaration_list" || body === "enum_declaration_list";
  return member && item !== null && item !== undefined && item.type !== "use_declaration"
    ? item
    : null;
}

// Whether a member's name is a method's (called, or declared as one): a property apart.
function phpMethod(node: Node): boolean {
  const access = phpAccess(node);
  if (access !== null) return access.type.endsWith("call_expression");
  return phpMemberDeclaration(node)?.type === "method_declaration";
}

function phpSpace(node: Node): "value" | "type" | "member" {
  if (phpAccess(node) !== null || phpMemberDeclaration(node) !== null) return "member";
  return node.parent?.type === "variable_name" ? "value" : "type";
}

// Whether an access's receiver is the enclosing class's own (`$this`, `self`, `static`, its name).
function phpOwnReceiver(access: Node): boolean {
  const object = field(access, "object") ?? field(access, "scope") ?? access.namedChildren[0];
  const text = object?.text ?? "";
  if (text === "$this" || text === "self" || text === "static") return true;
  for (let at = access.parent; at !== null; at = at.parent) {
    if (PHP_TYPES.has(at.type)) return field(at, "name")?.text === text;
  }
  return false;
}

// The namespace a qualified name is in (`A\B` of `\A\B\C`).
function phpNamespaceOf(name: Node): string {
  return named(name).find((part) => part.type === "namespace_name")?.text ?? "";
}

function inPhpUse(node: Node): Node | null {
  for (let at = node.parent; at !== null; at = at.parent) {
    if (at.type === "namespace_use_declaration") return at;
    if (
      !["namespace_use_clause", "qualified_name", "namespace_name", "namespace_use_group"].includes(
        at.type,
      )
    ) {
      return null;
    }
  }
  return null;
}

const PHP_RULES: ScopeRules = {
  space: phpSpace,
  member(node, lookup) {
    const access = phpAccess(node);
    if (access !== null) {
      const member = phpOwnReceiver(access) ? ownMember(lookup.lookUp(node)) : {};
      return phpMethod(node) ? { ...member, call: true } : member;
    }
    const item = phpMemberDeclaration(node);
    if (item !== null) {
      const member = { self: true, reach: phpReach(item) };
      return phpMethod(node) ? { ...member, call: true } : member;
    }
    const parent = node.parent;
    const last = parent?.namedChildren.at(-1)?.id === node.id;
    if (parent?.type === "qualified_name" && last && inPhpUse(node) === null) {
      const prefix = phpNamespaceOf(parent);
      return prefix === "" ? null : { module: prefix };
    }
    return null;
  },
  imported(node) {
    const use = inPhpUse(node);
    if (use === null) return null;
    const declared: Node[] = [];
    phpUses(use, (found) => found !== null && declared.push(found));
    if (declared.some((found) => found.id === node.id)) return null;
    return { module: use.text, imported: node.text };
  },
  importModule(node) {
    const clause = node.parent?.type === "namespace_use_clause" ? node.parent : node.parent?.parent;
    const path = named(clause ?? node).find((part) => part.type === "qualified_name");
    const prefix = path === undefined ? "" : phpNamespaceOf(path);
    const group = clause?.parent?.type === "namespace_use_group"
      ? named(clause.parent.parent ?? clause).find((part) => part.type === "namespace_name")?.text
      : undefined;
    return [group, prefix].filter((part) => part).join("\\").replace(/^\\|\\$/g, "");
  },
  sameSpace: (declared, use) =>
    phpSpace(declared) === phpSpace(use) && phpMethod(declared) === phpMethod(use),
  top: phpTop,
  scope: phpScope,
};

// ---- Ruby ----

const RB_DEFINITIONS = new Set(["method", "singleton_method"]);
const RB_BLOCKS = new Set(["block", "do_block", "lambda"]);
const RB_HOLDERS = new Set(["class", "module", "singleton_class"]);

function rbParameters(list: Node | null, declare: Declare): void {
  for (const parameter of list === null ? [] : named(list)) {
    if (parameter.type === "identifier") declare(parameter, "parameter");
    else if (parameter.type === "destructured_parameter") rbParameters(parameter, declare);
    else declare(field(parameter, "name"), "parameter");
  }
}

function rbTargets(node: Node | null, declare: Declare): void {
  if (node === null) return;
  if (node.type === "identifier") return declare(node, "variable");
  if (
    ["left_assignment_list", "destructured_left_assignment", "rest_assignment"].includes(node.type)
  ) {
    for (const child of named(node)) rbTargets(child, declare);
  }
}

// The variables a body assigns, not looking into nested methods, classes, blocks or lambdas.
function rbAssigned(node: Node, declare: Declare): void {
  for (const child of named(node)) {
    if (RB_DEFINITIONS.has(child.type) || RB_HOLDERS.has(child.type)) continue;
    if (RB_BLOCKS.has(child.type)) continue;
    if (child.type === "assignment" || child.type === "operator_assignment") {
      rbTargets(field(child, "left"), declare);
    } else if (child.type === "for") rbTargets(field(child, "pattern"), declare);
    else if (child.type === "exception_variable") rbTargets(child.namedChildren[0], declare);
    rbAssigned(child, declare);
  }
}

function rbBlockParameters(scope: Node): Node | null {
  return field(scope, "parameters");
}

// Whether an enclosing local scope of `scope` (a block) has a variable `name`.
function rbOuterHas(scope: Node, name: string): boolean {
  for (let at = scope.parent; at !== null; at = at.parent) {
    if (RB_HOLDERS.has(at.type)) return false;
    if (!RB_BLOCKS.has(at.type) && !RB_DEFINITIONS.has(at.type) && at.parent !== null) continue;
    let found = false;
    const seen: Declare = (node) => {
      if (node?.text === name) found = true;
    };
    if (at.parent === null) rbAssigned(at, seen);
    else rbLocals(at, seen, name);
    if (found) return true;
    if (RB_DEFINITIONS.has(at.type)) return false;
  }
  return false;
}

function rbLocals(scope: Node, declare: Declare, name?: string): void {
  rbParameters(rbBlockParameters(scope), declare);
  const body = field(scope, "body") ?? scope;
  if (RB_DEFINITIONS.has(scope.type)) return rbAssigned(body, declare);
  // A block's assignment of a name an enclosing scope has is that scope's variable.
  rbAssigned(body, (node, kind) => {
    if (node === null || (name !== undefined && node.text !== name)) return;
    if (!rbOuterHas(scope, node.text)) declare(node, kind);
  });
}

// Where the methods a class body declares are seen: after a bare `private`, the file.
function rbBody(body: Node, declare: Declare): void {
  let reach: Reach = "global";
  for (const item of named(body)) {
    const word = item.type === "identifier" ? item.text : null;
    if (word === "private") reach = "file";
    else if (word === "public" || word === "protected") reach = "global";
    else if (RB_DEFINITIONS.has(item.type)) declare(field(item, "name"), "method", { reach });
    else if (item.type === "call" && field(item, "method")?.text === "private") {
      for (const argument of named(field(item, "arguments") ?? item)) {
        if (RB_DEFINITIONS.has(argument.type)) {
          declare(field(argument, "name"), "method", { reach: "file" });
        }
      }
    } else if (RB_HOLDERS.has(item.type)) {
      declare(field(item, "name"), "class", { reach: "global" });
    } else if (item.type === "assignment" && field(item, "left")?.type === "constant") {
      declare(field(item, "left"), "constant", { reach: "global" });
    }
  }
}

function rbScope(scope: Node, declare: Declare, name: string): void {
  if (RB_DEFINITIONS.has(scope.type) || RB_BLOCKS.has(scope.type)) {
    return rbLocals(scope, declare, name);
  }
  if (
    scope.type === "body_statement" && scope.parent !== null && RB_HOLDERS.has(scope.parent.type)
  ) {
    rbBody(scope, declare);
  }
}

function rbTop(root: Node, at: { declare: Declare }): void {
  const { declare } = at;
  rbBody(root, declare);
  rbAssigned(root, (node, kind) => declare(node, kind, { reach: "file" }));
}

function rbCallName(node: Node): Node | null {
  const parent = node.parent;
  return parent?.type === "call" && isField(node, "method") ? parent : null;
}

function rbMethodDeclaration(node: Node): boolean {
  return node.parent !== null && RB_DEFINITIONS.has(node.parent.type) && isField(node, "name");
}

const RUBY_RULES: ScopeRules = {
  space: () => "value",
  member(node, lookup) {
    if (node.type === "instance_variable" || node.type === "class_variable") {
      return { self: true, reach: "file" };
    }
    if (rbMethodDeclaration(node)) {
      const found = lookup.lookUp(node);
      return found?.declaration.node.id === node.id ? ownMember(found) : { self: true };
    }
    const call = rbCallName(node);
    if (call !== null) {
      const receiver = field(call, "receiver");
      if (receiver !== null && receiver.type !== "self") return {};
      return ownMember(lookup.lookUp(node));
    }
    const parent = node.parent;
    if (parent?.type === "scope_resolution" && isField(node, "name")) {
      return { module: field(parent, "scope")?.text ?? "" };
    }
    if (node.type !== "identifier") return null;
    // A name no local binds is a method call of `self`.
    const found = lookup.lookUp(node);
    return found === null ? { self: true } : boundMember(found);
  },
  sameSpace: (declared, use) =>
    rbMethodDeclaration(declared) || (rbCallName(use) === null && !rbMethodDeclaration(use)),
  top: rbTop,
  scope: rbScope,
};

/** The rules of PHP and Ruby. */
export const SCRIPT_SCOPE_RULES: Record<string, ScopeRules> = { php: PHP_RULES, ruby: RUBY_RULES };
