/**
 * The node types `scope_bindings.ts` reads, per language: which nodes are
 * scopes and what each declares (parameters, local variables, loop, closure
 * and match bindings), what the file declares and how far each is seen
 * (C and C++: `static` functions and variables, and the macros and enum
 * constants of a `.c` file, are the file's own; Go: a package-level name in
 * lower case is its package's; Rust: an item without `pub` is its
 * module's), which names are members, and which are imported.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";

/** Where a declaration of a file is seen: the file, its folder's package, or everywhere. */
export type Reach = "file" | "package" | "global";

/** Records a declaration (`spelled`: the name it declares, when not the node's text). */
export type Declare = (
  node: Node | null,
  declares: string,
  options?: { reach?: Reach; spelled?: string },
) => void;

/** The lookup the rules may ask (`ScopeAnalysis`). */
export interface Lookup {
  /** The declaration a name node is bound to, or null. */
  lookUp(
    node: Node,
  ): { declaration: { node: Node; declares: string; reach?: Reach }; top: boolean } | null;
}

/** What a member's name is known to be (`ScopeRules.member`). */
export interface MemberOf {
  /** The module qualifying the name, if one does. */
  module?: string;
  /** Whether its receiver is the enclosing type's own value. */
  self?: boolean;
  /** Where its declaration is seen, when known. */
  reach?: Reach;
  /** Its declaration in the enclosing type, when found. */
  declaration?: Node;
  /** Whether it is a method (called or declared as one), where methods and fields are apart. */
  call?: boolean;
}

/** What `Lookup.lookUp` answers. */
export type Found = ReturnType<Lookup["lookUp"]>;

// The kinds a class body declares that are members of its value.
const MEMBER_KINDS = new Set(["field", "method", "constant"]);

/**
 * A member of the enclosing class's own value (`this.f`, `$this->f`, `@f`)
 * bound from a lookup: its declaration and reach when the lookup found a
 * member of the class, else only that its receiver is the class's own.
 */
export function ownMember(found: Found): MemberOf {
  if (found === null || !MEMBER_KINDS.has(found.declaration.declares)) return { self: true };
  const { node, reach } = found.declaration;
  return reach === undefined
    ? { self: true, declaration: node }
    : { self: true, reach, declaration: node };
}

/** `ownMember` when the lookup found a member of the class, else null. */
export function boundMember(found: Found): MemberOf | null {
  if (found === null || !MEMBER_KINDS.has(found.declaration.declares)) return null;
  return ownMember(found);
}

/** One language's rules. */
export interface ScopeRules {
  /** The name space of a name node. */
  space(node: Node): "value" | "type" | "member";
  /**
   * For a member (or a name qualified by a module): the module, if any, whether its
   * receiver is the enclosing type's own value (`self.f`, `this->f`), and where its
   * declaration is seen when that is known (a private member: its file); null for other names.
   */
  member(node: Node, lookup: Lookup): MemberOf | null;
  /** For a name inside an import that declares nothing itself: what it imports. */
  imported?(node: Node): { module: string; imported: string } | null;
  /** The module an import declaration (its declared node) imports from. */
  importModule?(node: Node): string;
  /** Whether the scope `scope` is not seen from `from` inside it (a Python class body). */
  opaque?(scope: Node, from: Node): boolean;
  /** Whether a declared node and a use are of the same name space. */
  sameSpace(declared: Node, use: Node): boolean;
  /** What the file (its root) declares. */
  top(root: Node, at: { declare: Declare; path: string }): void;
  /** What a scope node declares of `name` (nothing for a node that is no scope). */
  scope(scope: Node, declare: Declare, name: string): void;
  /** Whether the file imports every name of some module. */
  star?(root: Node): boolean;
}

/** The child of `node` in field `name`, or null. */
export function field(node: Node | null, name: string): Node | null {
  return node?.childForFieldName(name) ?? null;
}

/** The named children of `node`. */
export function named(node: Node): Node[] {
  return node.namedChildren.filter((child): child is Node => child !== null);
}

/** Whether `node` is its parent's child in field `name`. */
export function isField(node: Node, name: string): boolean {
  return node.parent?.childForFieldName(name)?.id === node.id;
}

// ---- C and C++ ----

const C_NAMES = new Set(["identifier", "type_identifier", "field_identifier"]);
const C_FLATTENED = new Set([
  "preproc_if",
  "preproc_ifdef",
  "preproc_else",
  "preproc_elif",
  "preproc_elifdef",
  "linkage_specification",
  "declaration_list",
  "namespace_definition",
]);
const C_HEADER = /\.(h|hh|hpp|hxx|h\+\+|inc|def|tcc)$/i;
const C_TYPES = new Set([
  "struct_specifier",
  "union_specifier",
  "enum_specifier",
  "class_specifier",
]);

// The name a declarator declares (through pointers, arrays, functions and parentheses).
function declaratorName(node: Node | null): Node | null {
  let at = node;
  for (let depth = 0; at !== null && depth < 32; depth++) {
    if (C_NAMES.has(at.type)) return at;
    if (at.type === "qualified_identifier" || at.type === "operator_name") return null;
    at = at.childForFieldName("declarator") ??
      named(at).find((child) => child.type.endsWith("declarator") || C_NAMES.has(child.type)) ??
      null;
  }
  return null;
}

function declaresFunction(node: Node | null): boolean {
  for (let at = node; at !== null; at = at.childForFieldName("declarator")) {
    if (at.type === "parenthesized_declarator") return false;
    if (at.type === "function_declarator") {
      const inner = at.childForFieldName("declarator");
      return inner !== null && C_NAMES.has(inner.type);
    }
  }
  return false;
}

// Statements of a body, with those inside preprocessor conditionals (and C++ namespaces).
function cItems(node: Node): Node[] {
  const items: Node[] = [];
  for (const child of named(node)) {
    if (C_FLATTENED.has(child.type)) items.push(...cItems(field(child, "body") ?? child));
    else items.push(child);
  }
  return items;
}

function cParameters(list: Node | null, declare: Declare): void {
  if (list === null) return;
  for (const parameter of named(list)) {
    declare(declaratorName(field(parameter, "declarator")), "parameter");
  }
}

function cFunctionParameters(declarator: Node | null, declare: Declare): void {
  for (let at = declarator; at !== null; at = at.childForFieldName("declarator")) {
    if (at.type === "function_declarator") return cParameters(field(at, "parameters"), declare);
  }
}

function cStatic(item: Node): boolean {
  return named(item).some((child) =>
    child.type === "storage_class_specifier" && child.text === "static"
  );
}

// A type specifier's own declarations: its name (when it has a body) and its enum constants.
function cTypeSpecifier(type: Node | null, at: { declare: Declare; local: Reach | undefined }) {
  if (type === null || !C_TYPES.has(type.type)) return;
  const body = field(type, "body");
  if (body === null) return;
  at.declare(field(type, "name"), "type");
  if (type.type !== "enum_specifier") return;
  for (const enumerator of named(body)) {
    at.declare(field(enumerator, "name"), "constant", { reach: at.local });
  }
}

// One declaration (of the file or of a block): its declarators and its type's declarations.
function cDeclaration(item: Node, at: { declare: Declare; local: Reach | undefined }): void {
  const { declare } = at;
  const type = field(item, "type");
  cTypeSpecifier(type, at);
  const declarators = item.children.filter((child): child is Node =>
    child !== null && item.fieldNameForChild(item.children.indexOf(child)) === "declarator"
  );
  if (item.type === "type_definition") {
    for (const declarator of declarators) declare(declaratorName(declarator), "type");
    return;
  }
  const extern = named(item).some((child) => child.text === "extern");
  const reach = cStatic(item) ? at.local : undefined;
  for (const declarator of declarators) {
    const prototype = extern || declaresFunction(declarator);
    declare(declaratorName(declarator), prototype ? "prototype" : "variable", { reach });
  }
  if (declarators.length === 0 && type !== null && C_TYPES.has(type.type)) {
    declare(field(type, "name"), "prototype");
  }
}

function cTop(root: Node, at: { declare: Declare; path: string }): void {
  const { declare } = at;
  // What only a `.c` file sees: its static declarations, its macros and enum constants.
  const local: Reach | undefined = C_HEADER.test(at.path) ? undefined : "file";
  for (const item of cItems(root)) {
    switch (item.type) {
      case "function_definition":
        declare(declaratorName(field(item, "declarator")), "function", {
          reach: cStatic(item) ? local : undefined,
        });
        break;
      case "declaration":
      case "type_definition":
        cDeclaration(item, { declare, local });
        break;
      case "preproc_def":
      case "preproc_function_def":
        declare(field(item, "name"), "macro", { reach: local });
        break;
      default:
        cTypeSpecifier(C_TYPES.has(item.type) ? item : null, { declare, local });
    }
  }
}

function cScope(scope: Node, declare: Declare): void {
  switch (scope.type) {
    case "function_definition":
      return cFunctionParameters(field(scope, "declarator"), declare);
    case "parameter_list":
      return scope.parent?.type === "function_declarator" ? cParameters(scope, declare) : undefined;
    case "compound_statement":
      for (const item of cItems(scope)) {
        if (item.type === "declaration" || item.type === "type_definition") {
          cDeclaration(item, { declare, local: undefined });
        }
      }
      return;
    case "for_statement": {
      const initializer = field(scope, "initializer");
      if (initializer?.type === "declaration") {
        cDeclaration(initializer, { declare, local: undefined });
      }
      return;
    }
    case "for_range_loop":
      return declare(declaratorName(field(scope, "declarator")), "variable");
    case "lambda_expression":
      return cFunctionParameters(field(scope, "declarator"), declare);
    case "catch_clause":
      return cParameters(field(scope, "parameters"), declare);
  }
}

const C_RULES: ScopeRules = {
  space: (node) =>
    node.type === "field_identifier"
      ? "member"
      : node.type === "type_identifier" || node.type === "namespace_identifier"
      ? "type"
      : "value",
  member(node) {
    if (node.type === "field_identifier") {
      const holder = node.parent?.type === "field_expression" ? node.parent : null;
      return field(holder, "argument")?.type === "this" ? { self: true } : {};
    }
    const parent = node.parent;
    if (parent?.type === "qualified_identifier" && isField(node, "name")) {
      return { module: field(parent, "scope")?.text ?? "" };
    }
    return null;
  },
  sameSpace: (declared, use) => declared.type === use.type,
  top: cTop,
  scope: cScope,
};

// ---- Go ----

function goReach(name: string): Reach {
  return /^[A-Z]/.test(name) ? "global" : "package";
}

function goSpecs(declaration: Node, declare: Declare, top: boolean): void {
  for (const spec of named(declaration)) {
    if (spec.type.endsWith("_spec_list")) {
      goSpecs(spec, declare, top);
      continue;
    }
    const kind = spec.type === "type_spec" || spec.type === "type_alias" ? "type" : "variable";
    for (let i = 0; i < spec.childCount; i++) {
      const child = spec.child(i);
      if (child === null || spec.fieldNameForChild(i) !== "name") continue;
      declare(child, kind, top ? { reach: goReach(child.text) } : undefined);
    }
  }
}

function goImports(declaration: Node, declare: Declare): void {
  for (const spec of declaration.descendantsOfType("import_spec")) {
    if (spec === null) continue;
    const alias = field(spec, "name");
    if (alias !== null) {
      declare(alias, "import");
      continue;
    }
    const path = field(spec, "path");
    const text = path?.text.replace(/^["`]|["`]$/g, "") ?? "";
    declare(path, "import", { spelled: text.slice(text.lastIndexOf("/") + 1) });
  }
}

function goTop(root: Node, at: { declare: Declare }): void {
  const { declare } = at;
  for (const item of named(root)) {
    if (item.type === "function_declaration") {
      const name = field(item, "name");
      declare(name, "function", { reach: goReach(name?.text ?? "") });
    } else if (item.type === "import_declaration") goImports(item, declare);
    else if (item.type.endsWith("_declaration")) goSpecs(item, declare, true);
  }
}

function goParameters(list: Node | null, declare: Declare): void {
  for (const parameter of list === null ? [] : named(list)) {
    for (let i = 0; i < parameter.childCount; i++) {
      if (parameter.fieldNameForChild(i) === "name") declare(parameter.child(i), "parameter");
    }
  }
}

function goDeclared(list: Node | null, declare: Declare): void {
  for (const name of list === null ? [] : named(list)) {
    if (name.type === "identifier") declare(name, "variable");
  }
}

function goShort(statement: Node | null, declare: Declare): void {
  if (statement?.type === "short_var_declaration") goDeclared(field(statement, "left"), declare);
  if (statement?.type === "receive_statement" && statement.text.includes(":=")) {
    goDeclared(field(statement, "left"), declare);
  }
}

function goScope(scope: Node, declare: Declare): void {
  switch (scope.type) {
    case "function_declaration":
    case "method_declaration":
    case "func_literal":
      for (const part of ["receiver", "parameters", "result"]) {
        goParameters(field(scope, part), declare);
      }
      return;
    case "statement_list":
      for (const statement of named(scope)) {
        goShort(statement, declare);
        if (statement.type.endsWith("_declaration")) goSpecs(statement, declare, false);
      }
      return;
    case "for_statement":
      for (const clause of named(scope)) {
        if (clause.type === "for_clause") goShort(field(clause, "initializer"), declare);
        if (clause.type === "range_clause" && clause.children.some((c) => c?.type === ":=")) {
          goDeclared(field(clause, "left"), declare);
        }
      }
      return;
    case "if_statement":
    case "expression_switch_statement":
    case "type_switch_statement":
      goShort(field(scope, "initializer"), declare);
      goDeclared(field(scope, "alias"), declare);
      return;
    case "communication_case":
      return goShort(field(scope, "communication"), declare);
  }
}

function importedModule(found: ReturnType<Lookup["lookUp"]>, rules: ScopeRules): string | null {
  if (found === null || found.declaration.declares !== "import") return null;
  return rules.importModule?.(found.declaration.node) ?? null;
}

const GO_RULES: ScopeRules = {
  space: (node) => node.type === "field_identifier" ? "member" : "value",
  member(node, lookup) {
    const parent = node.parent;
    if (parent?.type === "selector_expression" && isField(node, "field")) {
      const operand = field(parent, "operand");
      const module = operand?.type === "identifier"
        ? importedModule(lookup.lookUp(operand), GO_RULES)
        : null;
      return module === null ? {} : { module };
    }
    if (parent?.type === "qualified_type" && isField(node, "name")) {
      const pkg = field(parent, "package");
      return { module: (pkg && importedModule(lookup.lookUp(pkg), GO_RULES)) ?? pkg?.text ?? "" };
    }
    if (node.type === "field_identifier") return {};
    // `T{Field: value}`: a field's name.
    const element = parent?.type === "literal_element" ? parent : null;
    if (element?.parent?.type === "keyed_element" && isField(element, "key")) return {};
    return null;
  },
  importModule(node) {
    let spec: Node | null = node;
    while (spec !== null && spec.type !== "import_spec") spec = spec.parent;
    return field(spec, "path")?.text.replace(/^["`]|["`]$/g, "") ?? "";
  },
  sameSpace: (declared, use) =>
    (declared.type === "field_identifier") === (use.type === "field_identifier"),
  top: goTop,
  scope: goScope,
};

// ---- Python ----

const PY_NESTED = new Set(["function_definition", "class_definition", "lambda"]);
const PY_COMPREHENSIONS = new Set([
  "list_comprehension",
  "set_comprehension",
  "dictionary_comprehension",
  "generator_expression",
]);

function pyTargets(node: Node | null, declare: Declare, kind = "variable"): void {
  if (node === null) return;
  if (node.type === "identifier") return declare(node, kind);
  if (node.type === "attribute" || node.type === "subscript") return;
  for (const child of named(node)) pyTargets(child, declare, kind);
}

function pyImport(statement: Node, declare: Declare): void {
  for (let i = 0; i < statement.childCount; i++) {
    const part = statement.child(i);
    if (part === null || statement.fieldNameForChild(i) !== "name") continue;
    if (part.type === "aliased_import") declare(field(part, "alias"), "import");
    else if (statement.type === "import_statement") declare(part.namedChildren[0], "import");
    else declare(part.namedChildren.at(-1) ?? null, "import");
  }
}

// The names a function body or module binds, not looking into nested functions and classes.
function pyBound(node: Node, declare: Declare): void {
  for (const child of named(node)) {
    switch (child.type) {
      case "function_definition":
        declare(field(child, "name"), "function");
        continue;
      case "class_definition":
        declare(field(child, "name"), "class");
        continue;
      case "lambda":
        continue;
      case "assignment":
      case "augmented_assignment":
        pyTargets(field(child, "left"), declare);
        break;
      case "for_statement":
        pyTargets(field(child, "left"), declare);
        break;
      case "as_pattern_target":
      case "named_expression":
        pyTargets(child.type === "named_expression" ? field(child, "name") : child, declare);
        break;
      case "import_statement":
      case "import_from_statement":
        pyImport(child, declare);
        continue;
    }
    if (!PY_COMPREHENSIONS.has(child.type)) pyBound(child, declare);
  }
}

function pyParameters(list: Node | null, declare: Declare): void {
  for (const parameter of list === null ? [] : named(list)) {
    if (parameter.type === "identifier") declare(parameter, "parameter");
    else {
      const name = field(parameter, "name") ??
        named(parameter).find((child) => child.type === "identifier") ?? null;
      declare(name, "parameter");
    }
  }
}

// The names a function declares `global` or `nonlocal` (bound outside it).
function pyOuterNames(body: Node | null): Set<string> {
  const names = new Set<string>();
  const visit = (node: Node) => {
    for (const child of named(node)) {
      if (child.type === "global_statement" || child.type === "nonlocal_statement") {
        for (const name of named(child)) names.add(name.text);
      } else if (!PY_NESTED.has(child.type)) visit(child);
    }
  };
  if (body !== null) visit(body);
  return names;
}

function pyScope(scope: Node, declare: Declare): void {
  if (scope.type === "function_definition") {
    const outer = pyOuterNames(field(scope, "body"));
    const local: Declare = (node, kind, options) => {
      if (node !== null && !outer.has(node.text)) declare(node, kind, options);
    };
    pyParameters(field(scope, "parameters"), local);
    const body = field(scope, "body");
    if (body !== null) pyBound(body, local);
  } else if (scope.type === "lambda") {
    pyParameters(field(scope, "parameters"), declare);
  } else if (PY_COMPREHENSIONS.has(scope.type)) {
    for (const clause of named(scope)) {
      if (clause.type === "for_in_clause") pyTargets(field(clause, "left"), declare);
    }
  }
}

function pyStatement(node: Node): Node | null {
  let at: Node | null = node;
  while (at !== null && at.parent?.type !== "block" && at.parent?.type !== "module") {
    at = at.parent;
  }
  return at;
}

function pyModulePath(statement: Node | null): string {
  if (statement === null) return "";
  return field(statement, "module_name")?.text ?? "";
}

const PY_RULES: ScopeRules = {
  space: (node) => PY_RULES.member(node, { lookUp: () => null }) === null ? "value" : "member",
  member(node, lookup) {
    const parent = node.parent;
    if (parent?.type === "attribute" && isField(node, "attribute")) {
      let left = field(parent, "object");
      while (left?.type === "attribute") left = field(left, "object");
      const module = left?.type === "identifier"
        ? importedModule(lookup.lookUp(left), PY_RULES)
        : null;
      if (module !== null) return { module: field(parent, "object")?.text ?? module };
      return field(parent, "object")?.text === "self" ? { self: true } : {};
    }
    if (parent?.type === "keyword_argument" && isField(node, "name")) return {};
    // A declaration in a class body: the class's member.
    const statement = pyStatement(node);
    const holder = statement?.parent?.parent;
    if (holder?.type === "class_definition" && statement !== null) {
      const declares =
        statement.type === "function_definition" || statement.type === "class_definition"
          ? field(statement, "name")?.id === node.id
          : statement.type === "expression_statement" && isTarget(node, statement);
      if (declares) return {};
    }
    return null;
  },
  imported(node) {
    let statement: Node | null = node.parent;
    while (statement !== null && !statement.type.startsWith("import")) {
      if (statement.type === "aliased_import" && field(statement, "alias")?.id === node.id) {
        return null;
      }
      statement = statement.parent;
    }
    if (statement === null) return null;
    const declared: Node[] = [];
    pyImport(statement, (found) => found !== null && declared.push(found));
    if (declared.some((found) => found.id === node.id)) return null;
    const module = statement.type === "import_statement"
      ? node.parent?.text ?? ""
      : pyModulePath(statement);
    return { module, imported: node.text };
  },
  importModule(node) {
    let statement: Node | null = node.parent;
    while (statement !== null && !statement.type.startsWith("import")) statement = statement.parent;
    if (statement?.type === "import_from_statement") return pyModulePath(statement);
    const part = node.parent?.type === "aliased_import" ? field(node.parent, "name") : node.parent;
    return part?.text ?? node.text;
  },
  opaque: (scope, from) => scope.type === "class_definition" || firstIterable(scope, from),
  sameSpace: () => true,
  top: (root, at) => pyBound(root, at.declare),
  scope: pyScope,
  star: (root) => root.descendantsOfType("wildcard_import").length > 0,
};

// Whether `from` is in the first iterable of a comprehension (evaluated in the enclosing scope).
function firstIterable(scope: Node, from: Node): boolean {
  if (!PY_COMPREHENSIONS.has(scope.type)) return false;
  const first = named(scope).find((clause) => clause.type === "for_in_clause");
  const iterable = field(first ?? null, "right");
  return iterable !== null && from.startIndex >= iterable.startIndex &&
    from.endIndex <= iterable.endIndex;
}

function isTarget(node: Node, statement: Node): boolean {
  const assignment = statement.namedChildren[0];
  if (assignment?.type !== "assignment" && assignment?.type !== "augmented_assignment") {
    return false;
  }
  const found: Node[] = [];
  pyTargets(field(assignment, "left"), (name) => name !== null && found.push(name));
  return found.some((name) => name.id === node.id);
}

// ---- Rust ----

const RUST_ITEMS: Record<string, string> = {
  function_item: "function",
  function_signature_item: "function",
  struct_item: "type",
  enum_item: "type",
  union_item: "type",
  type_item: "type",
  trait_item: "type",
  const_item: "constant",
  static_item: "constant",
  mod_item: "module",
  macro_definition: "macro",
};
const RUST_NOT_BOUND = new Set([
  "scoped_identifier",
  "scoped_type_identifier",
  "type_identifier",
  "field_identifier",
  "generic_type",
]);

function rustPattern(node: Node | null, declare: Declare): void {
  if (node === null) return;
  if (node.type === "identifier") {
    // `None`, `Ordering::Less`: a constant or variant, not a new binding.
    if (!/^[A-Z]/.test(node.text) || node.parent?.type === "captured_pattern") {
      declare(node, "variable");
    }
    return;
  }
  if (node.type === "shorthand_field_identifier") return declare(node, "variable");
  if (RUST_NOT_BOUND.has(node.type)) return;
  if (node.type === "field_pattern") {
    // `Point { x }` binds x; `Point { x: px }` binds px.
    return rustPattern(field(node, "pattern") ?? field(node, "name"), declare);
  }
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (child === null || !child.isNamed) continue;
    const name = node.fieldNameForChild(i);
    if (name === "type" || name === "value" || name === "name") continue;
    rustPattern(child, declare);
  }
}

// The names a `use` declaration binds: each path's last segment, or its alias.
function rustUses(node: Node | null, declare: Declare, reach?: Reach): void {
  if (node === null) return;
  switch (node.type) {
    case "identifier":
      return declare(node, "import", { reach });
    case "scoped_identifier":
      return declare(field(node, "name"), "import", { reach });
    case "use_as_clause":
      return declare(field(node, "alias"), "import", { reach });
    case "scoped_use_list":
      return rustUses(field(node, "list"), declare, reach);
    case "use_list":
      for (const child of named(node)) rustUses(child, declare, reach);
  }
}

function rustItems(body: Node, at: { declare: Declare; top: boolean }): void {
  for (const item of named(body)) {
    const visible = named(item).some((child) => child.type === "visibility_modifier");
    const reach: Reach | undefined = at.top ? (visible ? "global" : "file") : undefined;
    if (item.type === "use_declaration") {
      rustUses(field(item, "argument"), at.declare, reach);
      continue;
    }
    const kind = RUST_ITEMS[item.type];
    if (kind !== undefined) at.declare(field(item, "name"), kind, { reach });
  }
}

function rustScope(scope: Node, declare: Declare): void {
  switch (scope.type) {
    case "function_item":
    case "closure_expression":
      for (
        const parameter of named(field(scope, "parameters") ?? scope).filter((p) =>
          p.parent?.type === "parameters" || p.parent?.type === "closure_parameters"
        )
      ) {
        rustPattern(field(parameter, "pattern") ?? parameter, declare);
      }
      return;
    case "block":
      for (const statement of named(scope)) {
        if (statement.type === "let_declaration") rustPattern(field(statement, "pattern"), declare);
      }
      return rustItems(scope, { declare, top: false });
    case "declaration_list":
      return scope.parent?.type === "mod_item"
        ? rustItems(scope, { declare, top: false })
        : undefined;
    case "for_expression":
    case "match_arm":
      return rustPattern(field(scope, "pattern"), declare);
    case "if_expression":
    case "while_expression":
      for (const condition of scope.descendantsOfType("let_condition")) {
        if (condition !== null) rustPattern(field(condition, "pattern"), declare);
      }
  }
}

// The module path a name of a `use` is imported from (`a::b` of `use a::b::{c as d}`).
function rustUsePath(node: Node): string {
  let at: Node | null = node.parent;
  if (at?.type === "use_as_clause") {
    const path = field(at, "path");
    if (path?.type === "scoped_identifier") return field(path, "path")?.text ?? "";
  }
  if (at?.type === "scoped_identifier") return field(at, "path")?.text ?? "";
  while (at !== null && at.type !== "scoped_use_list" && at.type !== "use_declaration") {
    at = at.parent;
  }
  return at?.type === "scoped_use_list" ? field(at, "path")?.text ?? "" : "";
}

function inUse(node: Node): Node | null {
  for (let at = node.parent; at !== null; at = at.parent) {
    if (at.type === "use_declaration") return at;
    if (at.type === "block" || at.type === "source_file") return null;
  }
  return null;
}

const RUST_RULES: ScopeRules = {
  space: (node) => node.type === "field_identifier" ? "member" : "value",
  member(node) {
    if (node.type === "field_identifier") {
      const holder = node.parent?.type === "field_expression" ? node.parent : null;
      return field(holder, "value")?.type === "self" ? { self: true } : {};
    }
    const parent = node.parent;
    if (
      (parent?.type === "scoped_identifier" || parent?.type === "scoped_type_identifier") &&
      isField(node, "name") && inUse(node) === null
    ) {
      return { module: field(parent, "path")?.text ?? "" };
    }
    const holder = parent?.parent?.parent?.type;
    if (
      isField(node, "name") && parent?.parent?.type === "declaration_list" &&
      (holder === "impl_item" || holder === "trait_item")
    ) {
      return {};
    }
    if (parent?.type === "enum_variant" && isField(node, "name")) return {};
    return null;
  },
  imported(node) {
    const use = inUse(node);
    if (use === null) return null;
    const declared: Node[] = [];
    rustUses(field(use, "argument"), (found) => found !== null && declared.push(found));
    if (declared.some((found) => found.id === node.id)) return null;
    return { module: field(use, "argument")?.text ?? "", imported: node.text };
  },
  importModule: rustUsePath,
  sameSpace: (declared, use) =>
    (declared.type === "field_identifier") === (use.type === "field_identifier"),
  top: (root, at) => rustItems(root, { declare: at.declare, top: true }),
  scope: rustScope,
  star: (root) => root.descendantsOfType("use_wildcard").length > 0,
};

/** The rules of each language `scope_bindings.ts` analyzes. */
export const SCOPE_RULES: Record<string, ScopeRules> = {
  c: C_RULES,
  cpp: C_RULES,
  go: GO_RULES,
  python: PY_RULES,
  rust: RUST_RULES,
};
