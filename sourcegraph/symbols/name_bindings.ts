/**
 * What each identifier spelling a name is bound to in one TypeScript or
 * JavaScript file, from its syntax tree alone: a declaration of a function
 * or block scope (`local`, parameters included), a declaration at the top
 * of the file (`file`), an imported name (`import`, with the module as
 * written and the name it is imported as), a member of something (`member`,
 * with what its receiver evidently is: the enclosing class for `this`, a
 * declared or constructed type, a namespace import), or nothing the file
 * declares (`free`). A name is looked up from its own scope outward, so a
 * local or parameter shadows the file's declarations and imports; every
 * declaration of a scope is seen throughout it (hoisting, simplified).
 *
 * Also what the file exports under a name (its own declaration, an import
 * it re-exports, or the modules of its `export *`). `definition` and
 * `references` both read these answers.
 *
 * @module
 */

import type { Node } from "web-tree-sitter";

/** Where an object is passed: the callee (as the file names it) and the argument's index. */
export interface PassedArgument {
  callee: string;
  index: number;
  /** The callee is that module's export, called through a namespace import. */
  module?: string;
  /** The callee is a method of a value this receiver describes (`client.get(url, { ... })`). */
  on?: Receiver;
  /** The named type of the call's type argument, or of the call that made the receiver. */
  typed?: string;
  /** The object is what a function passed there returns (`definePlugin(() => ({ ... }))`). */
  returned?: true;
}

/** What an occurrence's receiver evidently is. */
export type Receiver =
  /**
   * `this` inside a class (null: not inside one), with the names it extends or implements;
   * `literal`: inside a method of an untyped object literal, that literal's lines.
   */
  | {
    kind: "this";
    type: string | null;
    heritage: string[];
    literal?: { from: number; to: number };
  }
  /**
   * A value of a declared or constructed type, or the class itself (`Type.member`); `union`: the
   * other named types of the union it is annotated with (`matched: TypeImport | StaticImport`).
   */
  | { kind: "type"; type: string; union?: string[] }
  /**
   * A JSX attribute (`<Component name={...}>`): a property of the element's props; `line`: that
   * of the component's declaration when a function or block declares it (the one in scope).
   */
  | { kind: "props"; component: string; line?: number }
  /** A namespace import (`import * as ns`): the member is the module's export. */
  | { kind: "module"; module: string }
  /**
   * A value the file imports by name (`import ky from "./index"`): of the type its declaration
   * gives it (annotated, or returned by the call that sets it), or the class or enum itself.
   */
  | { kind: "value"; of: string }
  /**
   * The value of the member `of` of a value that `on` describes (`this.#options.hooks`): of the
   * named type that member is annotated with.
   */
  | { kind: "property"; of: string; on: Receiver }
  /**
   * The member's own declaration in a class, interface or typed object (null: untyped); for an
   * object literal passed to a call, the callee and the argument's index; for a member of an
   * object type annotating a parameter, the function's line and the parameter's index.
   */
  | {
    kind: "declaration";
    type: string | null;
    heritage: string[];
    declares: string;
    /**
     * `module`: the callee is that module's export, called through a namespace import; `on`: it
     * is a method of a value that receiver describes (`client.get(url, { ... })`); `typed`: the
     * named type of the call's first type argument (`atom<Item>({ ... })`), or of the type
     * argument of the call that made the method's receiver (`$store.set({ ... })` of
     * `let $store = map<Value>()`).
     */
    argument?: PassedArgument;
    /**
     * For an object of a type written as an anonymous object type in a call's type argument
     * (`$store.set({ a: 1 })` of `let $store = map<{ a: number }>()`, the state returned to or
     * set by `create<{ count: number }>()(...)`): that type's lines, whose members its keys are.
     */
    typedAt?: { from: number; to: number };
    /**
     * `to`: the function's last line (a value of the type is seen there, or passed to it).
     * `index` is `RETURN_TYPE` for the function's anonymous return type (and an object it returns).
     */
    parameter?: { line: number; index: number; to?: number; anonymous?: true };
    /** In an object literal (a value of its type, not a declaration of the type). */
    literal?: boolean;
    /** For a method: the named type of each parameter, as `Declared.parameters`. */
    parameters?: (string | string[] | null)[];
    /** For a method: the callbacks its parameters take, as `Declared.callbacks`. */
    callbacks?: ((string | null)[] | null)[];
    /** For a method (or a property of a function type): the named type it returns. */
    returns?: string;
    /** For a property annotated with named types (`retry?: RetryOptions | number`): those. */
    valueTypes?: string[];
    /** For a property annotated as an array of named types (`hooks?: Hook[]`): those. */
    elementTypes?: string[];
    /** For a property or method: the type arguments its annotations write, as `Declared`'s. */
    typeArguments?: TypeArguments;
    /** For a property annotated with the type of a value (`retry: typeof retry`): that value. */
    typeQuery?: string;
    /**
     * For an object literal that is the value of another literal's property (`{ retry: { ... } }`):
     * that property's name and the outer literal's context; the object is of the property's type
     * (`element`: it is an element of the array that is the value, `{ todos: [{ ... }] }`, of the
     * property's element type).
     */
    nested?: {
      key: string;
      outer: LiteralContext;
      /** An element of the array the property holds (`{ children: [{ ... }] }`): of its type's. */
      element?: boolean;
    };
    /**
     * For an object returned by a function set to a variable annotated with a named type
     * (`const github: Provider = (input) => ({ ... })`): that type, whose call signature's return
     * type the object is of.
     */
    signed?: string;
    /**
     * For an object literal set to a variable annotated with an intersection of named types
     * (`const mixed: BuildContext & Context = { ... }`): the parts after `type`, the first; a key
     * is the member of the part declaring it. For an object returned as a return type's
     * intersection (`parameter`'s anonymous part first): its named parts.
     */
    intersected?: string[];
    /**
     * For an object returned by a function that is a typed literal's property's value (`{
     * providers: { custom: (input) => ({ ... }) } }`): that property's name and the literal's
     * context; the object is of the return type of the property's function type.
     */
    handled?: { key: string; outer: LiteralContext };
    /** For an anonymous object (type) inside a function body: that body's first and last line. */
    within?: { from: number; to: number };
    /**
     * For a `private` member of a class: the class's first and last line, the only place it is
     * referred to (the compiler's references look nowhere else, even where a cast reaches it).
     */
    private?: { from: number; to: number };
    /**
     * For a key of an object literal set, without an annotation, to a variable (or under a key or
     * in an array of one, `as const` too): the object is of its own type, no other's.
     */
    untyped?: true;
  }
  /**
   * An element of an array the file imports (`for (const route of routes)`): of the element type
   * that array's declaration names. `on`: the array is the member `of` of a value that receiver
   * describes (`config.layers.map((layer) => ...)`), of the element type that member's annotation
   * names.
   */
  | { kind: "element"; of: string; on?: Receiver }
  /**
   * A value of the object `of` describes, read with `Object.values` or as the second of each pair
   * of `Object.entries`: of the value type of the `Record<K, V>` that object's type is.
   */
  | { kind: "entry"; of: Receiver }
  /**
   * What a call of a function the file declares or imports returns (`const pool = createPool()`,
   * `await load()`): of the named return type that function's declaration writes (or the call
   * signature of the type of a value called). `on`: the function is the member `of` of a value
   * that receiver describes (`client.get(url).json()`).
   */
  | {
    kind: "result";
    of: string;
    on?: Receiver;
    awaited?: boolean;
    made?: string[];
    typedAt?: { from: number; to: number };
    /**
     * An element of the array the call returns (`for (const plugin of plugins)` of `const plugins
     * = await resolvePlugins()`, `const [first] = load()`): of the element type its declaration
     * writes for what it returns.
     */
    element?: true;
  }
  /**
   * A parameter of a function passed as an argument (`app.get("/", (event) => ...)`): of the type
   * the callee's parameter at `argument` gives its parameter at `parameter` (a function type's,
   * written inline or named). The callee is a function the file declares or imports, an export
   * of a namespace import (`module`), or a method of a value `of` describes. `typedAt`: the
   * method's value was made by a call written with an anonymous object type as its type argument
   * (`$store.listen((value) => ...)` of `let $store = map<{ a: number }>()`), those lines: the
   * parameter is of that type.
   */
  | {
    kind: "callback";
    callee: string;
    argument: number;
    parameter: number;
    module?: string;
    of?: Receiver;
    made?: string[];
    typedAt?: { from: number; to: number };
  }
  /**
   * A parameter of a function set to a variable annotated with a named function type
   * (`const handler: EventHandler = (event) => ...`): of that type's parameter at `parameter`.
   */
  | {
    kind: "signature";
    type: string;
    parameter: number;
    /** The named type of each type argument the annotation writes (`DriverFactory<Options>`). */
    given?: (string | null)[];
  }
  /**
   * A parameter of a function that is a typed object literal's property's value, or an element
   * of the array that is (`{ hooks: { beforeRequest: [(state) => ...] } }`): of the type that
   * property's function type (or its array's element type) gives its parameter at `parameter`.
   */
  | { kind: "handler"; key: string; outer: LiteralContext; element: boolean; parameter: number }
  /**
   * Not evident (global: a name the file does not declare, such as `process` or `window`).
   * `made` (here, on a call's result and on a callback): the value comes from a variable the file
   * sets without an annotation from a call (`const useStore = create<State>()(...)`) or an object
   * literal (`const mock = { put: vi.fn() }`), and these are the type names written in it.
   * `typedAt` (here and on a call's result): the variable is set from a call written with an
   * anonymous object type argument and given an object (`proxy<{ count: number }>({ count: 0 })`),
   * that type's lines: the value is of it.
   */
  | {
    kind: "unknown";
    global?: boolean;
    made?: string[];
    typedAt?: { from: number; to: number };
    /**
     * The value of a variable set, without an annotation, to an object literal (`let ref = {
     * current: 0 }`): that literal's lines, whose keys are its only members.
     */
    object?: { from: number; to: number };
  };

/** What types an object literal: its named type, the call it is passed to, or its outer literal. */
export type LiteralContext = Pick<
  Extract<Receiver, { kind: "declaration" }>,
  "type" | "argument" | "parameter" | "nested" | "typedAt" | "signed" | "handled" | "intersected"
>;

/** A declaration: where its name is, what it declares and what encloses it. */
export interface Declared {
  line: number;
  /** 0-based UTF-16 column of the declared name. */
  column: number;
  /** What it declares: function, class, interface, type, enum, module, constant, variable, parameter. */
  declares: string;
  /** The enclosing function, method or class, or null at the top of the file. */
  container: string | null;
  /**
   * For a function: the named type of each parameter (null: none, or not a named type; a union
   * of named types: each of them).
   */
  parameters?: (string | string[] | null)[];
  /**
   * For a function: for each parameter typed by a function type written inline
   * (`fn: (ctx: Context) => void`), the named type of each of that type's parameters.
   */
  callbacks?: ((string | null)[] | null)[];
  /**
   * For a function: per parameter typed by a type parameter written with a constraint, that
   * constraint's named type (null for another parameter).
   */
  constraints?: (string | null)[];
  /**
   * For a type alias of a function type or an interface with a call signature: the named type of
   * each parameter of the function it describes.
   */
  parameterTypes?: (string | null)[];
  /** For a type alias or an interface: the named types it is made of or extends. */
  parts?: string[];
  /**
   * For a type alias or an interface: per generic part written with type arguments
   * (`Required<Options, "fetch">`), the named type of each argument (null: not a named type).
   */
  partArguments?: Record<string, (string | null)[]>;
  /**
   * For an interface or an alias of an object type with an index signature (`[key: string]:
   * Value | Input`): the named types of its values, those of the keys it does not declare.
   */
  indexValues?: string[];
  /** For a generic type alias or interface: its type parameters' names, in order. */
  typeParameters?: string[];
  /**
   * For a function (its parameters' annotations) or a type alias (its value): per generic type
   * written with type arguments there, at any depth (`Resolvable<Plugin>`,
   * `Record<string, Resolvable<Command>>`), the named type of each argument (null: not a named
   * type, or a type parameter).
   */
  typeArguments?: TypeArguments;
  /** For a variable annotated as an array of a named type (`Route[]`): that type. */
  elementType?: string;
  /**
   * For a function: the named type it returns (a `Promise`'s: what awaiting it gives); for a
   * type alias or interface with a call signature, what calling a value of it returns.
   */
  returns?: string;
  /** For a variable: the named type its annotation writes. */
  valueType?: string;
  /**
   * For a variable annotated with a generic type written with type arguments
   * (`DriverFactory<FSOptions>`): the named type of each argument (null: not a named type).
   */
  valueArguments?: (string | null)[];
  /** For a variable set from a call (or `await` of one) of a named function: that function. */
  setBy?: string;
  /**
   * For a local: the first and last line of the scope declaring it (a block, a function), where
   * alone its name means it (another block may declare the same name).
   */
  block?: { from: number; to: number };
  /**
   * For a function returning an array of a named type (`Promise<Plugin[]>`, `Arg[]`): that type,
   * its elements'.
   */
  returnsElement?: string;
  /**
   * For a function whose return type is an intersection (`Promise<Pick<Options, "cwd"> & { ...
   * }>`): its named parts, whose members what its calls give has too.
   */
  returnsParts?: string[];
  /**
   * For a type alias of a union with function types among its arms (`T | (() => T)`): the named
   * types those functions return (a `Promise`'s: what awaiting it gives).
   */
  returnedBy?: string[];
  /**
   * For an interface or an object type alias with a construct signature (`new (config?: object):
   * PrinterType`): the named type `new` of a value of it makes.
   */
  constructs?: string;
}

/** Per generic type written with type arguments, the named type of each argument. */
export type TypeArguments = Record<string, (string | null)[]>;

/** What one identifier is bound to. */
export type Binding =
  | ({ kind: "local" } & Declared)
  | ({ kind: "file" } & Declared)
  | {
    kind: "import";
    module: string;
    imported: string;
    line: number;
    column: number;
    /**
     * For a declaration inside `declare module "m" { }` (which merges into m's export of the
     * name): the declaration itself, the answer when m is not in the files (a package).
     */
    augments?: Declared;
    /** For the imported name of `import { a as b }`: the name it is known by in the file. */
    alias?: string;
  }
  | { kind: "member"; receiver: Receiver }
  | { kind: "free" };

/** What a file exports under a name. */
export interface Exported {
  /** The file's own declaration or re-exported import; null when it has none of that name. */
  binding: Binding | null;
  /** The modules of its `export * from` (where the name may come from). */
  starModules: string[];
}

const FUNCTIONS = new Set([
  "function_declaration",
  "generator_function_declaration",
  "function_expression",
  "function",
  "generator_function",
  "arrow_function",
  "method_definition",
  "function_signature",
]);
const JSX_ELEMENTS = new Set([
  "jsx_opening_element",
  "jsx_closing_element",
  "jsx_self_closing_element",
]);
const CLASSES = new Set(["class_declaration", "class", "abstract_class_declaration"]);
const TYPE_HOLDERS = new Set(["interface_declaration", "type_alias_declaration"]);
const DECLARATION_KINDS: Record<string, string> = {
  function_declaration: "function",
  generator_function_declaration: "function",
  function_signature: "function",
  class_declaration: "class",
  abstract_class_declaration: "class",
  interface_declaration: "interface",
  type_alias_declaration: "type",
  enum_declaration: "enum",
  internal_module: "module",
  module: "module",
};
const MEMBER_DECLARATIONS: Record<string, string> = {
  method_definition: "method",
  method_signature: "method",
  abstract_method_signature: "method",
  public_field_definition: "field",
  property_signature: "field",
  pair: "field",
};

/** Whether the analysis knows the language's scopes and imports. */
export function analyzesLanguage(language: string): boolean {
  return language === "typescript" || language === "tsx" || language === "javascript";
}

/** The binding of `node`, a name node spelling the name. */
export function bindingOf(node: Node): Binding {
  const parent = node.parent;
  if (parent === null) return { kind: "free" };
  if (node.type === "string_fragment") return { kind: "member", receiver: indexed(parent) };
  if (parent.type === "member_expression" && parent.childForFieldName("property")?.id === node.id) {
    return memberBinding(parent, node.text);
  }
  if (
    parent.type === "nested_type_identifier" && parent.childForFieldName("name")?.id === node.id
  ) {
    return { kind: "member", receiver: receiverOf(parent.childForFieldName("module")) };
  }
  if (parent.type === "jsx_attribute" && parent.namedChildren[0]?.id === node.id) {
    return { kind: "member", receiver: jsxProps(parent) };
  }
  if (parent.type === "pair_pattern" && parent.childForFieldName("key")?.id === node.id) {
    return { kind: "member", receiver: destructured(parent) };
  }
  const memberKind = MEMBER_DECLARATIONS[parent.type];
  if (memberKind !== undefined && parent.childForFieldName(keyField(parent))?.id === node.id) {
    return { kind: "member", receiver: memberDeclaration(parent, memberKind) };
  }
  if (parent.type === "enum_body" || parent.type === "enum_assignment") {
    return { kind: "member", receiver: declaringType(parent, "constant") };
  }
  const exported = exportSpecifierBinding(parent);
  if (exported !== null) return exported;
  if (JSX_ELEMENTS.has(parent.type) && /^[a-z]/.test(node.text)) {
    // `<html>`: an intrinsic element (lower case) names no value of the file.
    return { kind: "free" };
  }
  if (node.type === "property_identifier" || node.type === "private_property_identifier") {
    return { kind: "member", receiver: { kind: "unknown" } };
  }
  return lookUp(node, node.text) ?? { kind: "free" };
}

// `value.name`: a member of what `value` is; `globalThis.name`: the file's global of that name.
function memberBinding(member: Node, name: string): Binding {
  const object = member.childForFieldName("object");
  const global = object?.text === "globalThis" ? globalDeclaration(object, name) : null;
  return global ?? { kind: "member", receiver: receiverOf(object) };
}

// For `globalThis.name` (`globalThis` not a name of the file): the file's declaration of `name` in
// a `declare global { }` block, a global of the program; null when it has none.
function globalDeclaration(object: Node, name: string): Binding | null {
  if (object.type !== "identifier" || lookUp(object, object.text) !== null) return null;
  for (const statement of rootOf(object).namedChildren) {
    const block = statement?.type === "ambient_declaration" ? statement.namedChildren[0] : null;
    if (block?.type !== "statement_block") continue;
    const found = declarationsOf(block, name)[0];
    if (found !== undefined) return found.binding;
  }
  return null;
}

// The declaration of a member (`declares`: method or field) by `parent`, with what its
// annotations say of the values and objects it takes and gives.
function memberDeclaration(parent: Node, memberKind: string): Receiver {
  const receiver = declaringType(parent, memberKind);
  // A method's (or a function-typed property's) parameters type the objects and callbacks
  // passed to it, its return type what its calls give.
  const fn = memberKind === "method" ? parent : functionTyped(parent);
  if (receiver.kind === "declaration" && fn !== null) {
    Object.assign(receiver, functionTypes(fn));
    const returns = returnTypeOf(fn);
    if (returns !== null) receiver.returns = returns;
  }
  const annotation = memberKind === "field" && fn === null
    ? parent.childForFieldName("type")?.namedChildren[0] ?? null
    : null;
  const written = typeArguments(fn === null ? [annotation] : parameterAnnotations(fn));
  if (receiver.kind === "declaration" && written !== null) receiver.typeArguments = written;
  const valueTypes = annotation === null ? [] : namedParts(annotation);
  if (receiver.kind === "declaration" && valueTypes.length > 0) receiver.valueTypes = valueTypes;
  const query = annotation?.type === "type_query" ? annotation.namedChildren[0] : null;
  if (receiver.kind === "declaration" && query?.type === "identifier") {
    receiver.typeQuery = query.text;
  }
  const element = annotation?.type === "array_type" ? annotation.namedChildren[0] : null;
  const elementTypes = element ? namedParts(element) : [];
  if (receiver.kind === "declaration" && elementTypes.length > 0) {
    receiver.elementTypes = elementTypes;
  }
  return receiver;
}

/**
 * For a name declared by destructuring (`const { name } = value`), the
 * receiver of the property it reads; null for other names.
 */
export function destructuredReceiver(node: Node): Receiver | null {
  if (node.type === "shorthand_property_identifier" && node.parent?.type === "object") {
    // `{ name }` in an object literal: also the object's property `name`.
    return declaringType(node, "field");
  }
  if (node.type !== "shorthand_property_identifier_pattern") return null;
  return destructured(node);
}

/** What the file whose tree is `root` exports as `name` (`default` for its default export). */
export function exportedAs(root: Node, name: string): Exported {
  const starModules: string[] = [];
  let binding: Binding | null = null;
  for (const statement of root.namedChildren) {
    if (statement === null) continue;
    if (statement.type === "export_statement") {
      const source = moduleOf(statement);
      const clause = statement.namedChildren.find((child) => child?.type === "export_clause");
      if (source !== null && clause === undefined) {
        if (!statement.namedChildren.some((child) => child?.type === "namespace_export")) {
          starModules.push(source);
        }
        continue;
      }
      if (binding === null && clause) binding = clauseExport(clause, { name, source });
      if (binding === null && name === "default" && statement.text.startsWith("export default")) {
        const value = statement.childForFieldName("declaration") ??
          statement.childForFieldName("value");
        const named = value?.childForFieldName("name");
        binding = named ? lookUp(named, named.text) : null;
        if (binding === null && value?.type === "identifier") binding = lookUp(value, value.text);
      }
    }
  }
  if (binding === null && name !== "default") {
    // The file's own declaration (an import it does not re-export is not its export).
    const own = declarationsOf(root, name).find((found) => found.binding.kind === "file");
    if (own !== undefined) binding = own.binding;
  }
  return { binding, starModules };
}

function clauseExport(clause: Node, at: { name: string; source: string | null }): Binding | null {
  for (const specifier of clause.namedChildren) {
    if (specifier === null || specifier.type !== "export_specifier") continue;
    const local = specifier.childForFieldName("name");
    const alias = specifier.childForFieldName("alias") ?? local;
    if (local === null || alias?.text !== at.name) continue;
    if (at.source !== null) {
      return {
        kind: "import",
        module: at.source,
        imported: local.text,
        line: local.startPosition.row + 1,
        column: local.startPosition.column,
      };
    }
    return lookUp(local, local.text);
  }
  return null;
}

// `export { a as b } from "m"`: `a` is imported from m; `export { a as b }`: `a` is the local a.
function exportSpecifierBinding(parent: Node): Binding | null {
  if (parent.type !== "export_specifier") return null;
  const local = parent.childForFieldName("name");
  const statement = parent.parent?.parent;
  const source = statement ? moduleOf(statement) : null;
  if (local === null) return null;
  if (source !== null) {
    return {
      kind: "import",
      module: source,
      imported: local.text,
      line: local.startPosition.row + 1,
      column: local.startPosition.column,
    };
  }
  return lookUp(local, local.text) ?? { kind: "free" };
}

function keyField(node: Node): string {
  return node.type === "pair" ? "key" : "name";
}

function moduleOf(statement: Node): string | null {
  const source = statement.childForFieldName("source");
  if (source === null) return null;
  return source.namedChildren.find((child) => child?.type === "string_fragment")?.text ?? "";
}

// The name's declaration seen from `node`: the nearest scope declaring it.
function lookUp(node: Node, name: string): Binding | null {
  if (node.parent === null) return null;
  return node.type === "type_identifier"
    ? typeSeenFrom(node.parent, name)
    : bindingSeenFrom(node.parent, name);
}

// What only declares a value, which a name in a type position does not mean (`this: PathVisitor`
// inside `const PathVisitor = function (this: PathVisitor) {}` is the interface around it).
const VALUE_DECLARATIONS = new Set(["constant", "variable", "parameter", "function"]);

// `bindingSeenFrom` for a name in a type position: the nearest declaration that is not a value's.
function typeSeenFrom(scope: Node, name: string): Binding | null {
  for (let at: Node | null = scope; at !== null; at = at.parent) {
    const found = declarationsOf(at, name).find(({ binding }) =>
      (binding.kind !== "local" && binding.kind !== "file") ||
      !VALUE_DECLARATIONS.has(binding.declares)
    );
    if (found !== undefined) return found.binding;
  }
  return null;
}

/**
 * The binding of `name` as seen from inside `scope` (the innermost node around
 * a place that is no identifier of the tree, as a documentation comment):
 * the nearest declaration of the name in it or around it, or null (a global,
 * or nothing the file declares or imports).
 */
export function bindingSeenFrom(scope: Node, name: string): Binding | null {
  for (let at: Node | null = scope; at !== null; at = at.parent) {
    const found = declarationsOf(at, name)[0];
    if (found !== undefined) return found.binding;
  }
  return null;
}

interface Declaration {
  node: Node;
  binding: Binding;
}

// The declarations of one name by scope node id, for the file being analyzed: every
// occurrence of a name asks the same scopes (a file is analyzed for one name at a time).
let scopes: { name: string; byScope: Map<number, Declaration[]> } | null = null;

// Whether each function body (by node id) returns a value, for the file being analyzed: every
// member of an anonymous object in a body asks about the same body.
let returning = new Map<number, boolean>();

// The type names each call setting a variable is written with (by declarator node id), for the
// file being analyzed: every use of the variable asks about the same call.
let madeNames = new Map<number, string[] | null>();

/** Starts the analysis of a file (what was learned of the previous file's scopes is dropped). */
export function beginFile(): void {
  scopes = null;
  returning = new Map();
  madeNames = new Map();
}

// The declarations a scope node makes of `name` (none when it is no scope).
function declarationsOf(scope: Node, name: string): Declaration[] {
  if (scopes === null || scopes.name !== name) scopes = { name, byScope: new Map() };
  // Finding a declaration may look another name up (a `Partial<T>` annotation asks whether the
  // file declares `Partial`), which starts that name's map: this one's is kept apart from it.
  const kept = scopes;
  let found = kept.byScope.get(scope.id);
  if (found === undefined) {
    found = scopeDeclarations(scope, name);
    kept.byScope.set(scope.id, found);
  }
  return found;
}

function scopeDeclarations(scope: Node, name: string): Declaration[] {
  const found: Declaration[] = [];
  const top = scope.type === "program";
  const augmented = augmentedModule(scope);
  const declare = (nameNode: Node, kind: string) => {
    if (nameNode.text !== name) return;
    const declared: Declared = {
      line: nameNode.startPosition.row + 1,
      column: nameNode.startPosition.column,
      declares: kind,
      container: containerName(nameNode),
    };
    Object.assign(declared, parameterFields(nameNode));
    const signature = signatureOf(nameNode);
    if (signature !== null) declared.parameterTypes = signature;
    Object.assign(declared, typeShape(nameNode));
    const element = elementType(nameNode);
    if (element !== null) declared.elementType = element;
    const declaredFunction = functionNamed(nameNode);
    const returns = declaredFunction === null
      ? signatureReturns(nameNode)
      : returnTypeOf(declaredFunction);
    if (returns !== null) declared.returns = returns;
    const constructs = constructedType(nameNode);
    if (constructs !== null) declared.constructs = constructs;
    const elements = declaredFunction === null ? null : returnedElement(declaredFunction);
    if (elements !== null) declared.returnsElement = elements;
    const parts = declaredFunction === null ? [] : returnedParts(declaredFunction);
    if (parts.length > 0) declared.returnsParts = parts;
    Object.assign(declared, valueTypes(nameNode));
    if (augmented !== null) {
      // `declare module "../context" { interface Renderer { } }` adds to that module's
      // `Renderer`: the same declaration, merged, not a new one.
      const { line, column } = declared;
      const binding = { kind: "import" as const, module: augmented, imported: name, line, column };
      found.push({ node: nameNode, binding: { ...binding, augments: declared } });
      return;
    }
    if (!top) declared.block = linesOf(scope);
    found.push({
      node: nameNode,
      binding: top ? { kind: "file", ...declared } : { kind: "local", ...declared },
    });
  };
  headDeclarations(scope, declare);
  if (
    top || scope.type === "statement_block" || scope.type === "switch_case" ||
    scope.type === "switch_default" || scope.type === "class_static_block"
  ) {
    for (const statement of scope.namedChildren) {
      if (statement !== null) statementDeclarations(statement, declare);
    }
  }
  if (top) found.push(...importsOf(scope, name));
  return found;
}

// What a declared name's type is made of: an alias's or interface's named parts, its index
// signature's values, its generic parts and function arms, and the type arguments its annotations
// or value write.
function typeShape(nameNode: Node): Partial<Declared> {
  const shape: Partial<Declared> = {};
  const parts = typeParts(nameNode);
  if (parts.length > 0) shape.parts = parts;
  const indexValues = signatureValues(nameNode);
  if (indexValues.length > 0) shape.indexValues = indexValues;
  Object.assign(shape, genericParts(nameNode));
  const arms = armReturns(nameNode);
  if (arms.length > 0) shape.returnedBy = arms;
  const written = declaredArguments(nameNode);
  if (written !== null) shape.typeArguments = written;
  return shape;
}

// For the body of a module augmentation (`declare module "./context" { }`), the module it
// augments; null for another scope.
function augmentedModule(scope: Node): string | null {
  const holder = scope.parent;
  if (scope.type !== "statement_block" || holder?.type !== "module") return null;
  if (holder.parent?.type !== "ambient_declaration") return null;
  const named = holder.childForFieldName("name");
  if (named?.type !== "string") return null;
  return named.namedChildren.find((child) => child?.type === "string_fragment")?.text ?? null;
}

// What a scope declares in its head: parameters, a named function expression's or class
// expression's own name, type parameters, catch and loop variables.
function headDeclarations(scope: Node, declare: (name: Node, kind: string) => void): void {
  if (FUNCTIONS.has(scope.type)) {
    const parameters = scope.childForFieldName("parameters") ??
      scope.childForFieldName("parameter");
    if (parameters !== null) patternNames(parameters, (n) => declare(n, "parameter"));
    if (scope.type === "function_expression" || scope.type === "function") {
      const own = scope.childForFieldName("name");
      if (own !== null) declare(own, "function");
    }
  }
  const typeParameters = scope.childForFieldName("type_parameters");
  if (typeParameters !== null) {
    for (const parameter of typeParameters.namedChildren) {
      const named = parameter?.childForFieldName("name");
      if (named) declare(named, "type");
    }
  }
  if (scope.type === "class") {
    const own = scope.childForFieldName("name");
    if (own !== null) declare(own, "class");
  }
  if (scope.type === "catch_clause") {
    const parameter = scope.childForFieldName("parameter");
    if (parameter !== null) patternNames(parameter, (n) => declare(n, "variable"));
  }
  if (scope.type === "for_in_statement") {
    const left = scope.childForFieldName("left");
    if (left !== null && scope.childForFieldName("kind") !== null) {
      patternNames(left, (n) => declare(n, "variable"));
    }
  }
  if (scope.type === "for_statement") {
    const initializer = scope.childForFieldName("initializer");
    if (initializer !== null) statementDeclarations(initializer, declare);
  }
}

function statementDeclarations(
  statement: Node,
  declare: (name: Node, kind: string) => void,
): void {
  let node = statement;
  if (node.type === "export_statement") {
    const inner = node.childForFieldName("declaration");
    if (inner === null) return;
    node = inner;
  }
  if (node.type === "ambient_declaration") {
    const inner = node.namedChildren.find((child) => child !== null && child.type !== "comment");
    if (!inner) return;
    node = inner;
  }
  if (node.type === "lexical_declaration" || node.type === "variable_declaration") {
    const constant = node.text.startsWith("const");
    for (const declarator of node.namedChildren) {
      if (declarator?.type !== "variable_declarator") continue;
      const named = declarator.childForFieldName("name");
      if (named !== null) {
        patternNames(named, (n) => declare(n, constant ? "constant" : "variable"));
      }
    }
    return;
  }
  const kind = DECLARATION_KINDS[node.type];
  if (kind === undefined) return;
  const named = node.childForFieldName("name");
  if (named !== null) declare(named, kind);
}

// Every name a parameter list or a binding pattern declares.
function patternNames(node: Node, found: (name: Node) => void): void {
  switch (node.type) {
    case "identifier":
    case "shorthand_property_identifier_pattern":
      found(node);
      return;
    case "required_parameter":
    case "optional_parameter": {
      const pattern = node.childForFieldName("pattern");
      if (pattern !== null) patternNames(pattern, found);
      return;
    }
    case "pair_pattern": {
      const value = node.childForFieldName("value");
      if (value !== null) patternNames(value, found);
      return;
    }
    case "assignment_pattern":
    case "object_assignment_pattern": {
      const left = node.childForFieldName("left");
      if (left !== null) patternNames(left, found);
      return;
    }
    case "formal_parameters":
    case "object_pattern":
    case "array_pattern":
    case "rest_pattern":
      for (const child of node.namedChildren) if (child !== null) patternNames(child, found);
  }
}

// The names `import` statements bind at the top of a file.
function importsOf(program: Node, name: string): Declaration[] {
  const found: Declaration[] = [];
  for (const statement of program.namedChildren) {
    if (statement?.type !== "import_statement") continue;
    const module = moduleOf(statement) ?? "";
    const clause = statement.namedChildren.find((child) => child?.type === "import_clause");
    if (!clause) continue;
    const add = (local: Node, imported: string) => {
      if (local.text !== name) return;
      const at = { line: local.startPosition.row + 1, column: local.startPosition.column };
      found.push({ node: local, binding: { kind: "import", module, imported, ...at } });
    };
    for (const part of clause.namedChildren) {
      if (part === null) continue;
      if (part.type === "identifier") add(part, "default");
      if (part.type === "namespace_import") {
        const local = part.namedChildren.find((child) => child?.type === "identifier");
        if (local) add(local, "*");
      }
      if (part.type !== "named_imports") continue;
      for (const specifier of part.namedChildren) {
        const imported = specifier?.childForFieldName("name");
        if (!specifier || !imported) continue;
        add(specifier.childForFieldName("alias") ?? imported, imported.text);
      }
    }
  }
  return found;
}

// The import specifiers themselves: `a` in `import { a as b }` names a's export.
/** The binding of a name inside an import specifier (`a` of `import { a as b }`), or null. */
export function importedNameBinding(node: Node): Binding | null {
  const specifier = node.parent;
  if (specifier?.type !== "import_specifier") return null;
  if (specifier.childForFieldName("name")?.id !== node.id) return null;
  let statement: Node | null = specifier;
  while (statement !== null && statement.type !== "import_statement") statement = statement.parent;
  if (statement === null) return null;
  const alias = specifier.childForFieldName("alias");
  return {
    kind: "import",
    module: moduleOf(statement) ?? "",
    imported: node.text,
    line: node.startPosition.row + 1,
    column: node.startPosition.column,
    ...(alias !== null && alias.text !== node.text ? { alias: alias.text } : {}),
  };
}

function containerName(node: Node): string | null {
  for (let up = node.parent; up !== null; up = up.parent) {
    if (up.type === "program") return null;
    const own = up.childForFieldName("name");
    if (
      own !== null && own.id !== node.id &&
      (FUNCTIONS.has(up.type) || CLASSES.has(up.type) || TYPE_HOLDERS.has(up.type))
    ) {
      return own.text;
    }
    if (up.type === "variable_declarator" && up.childForFieldName("name")?.id !== node.id) {
      const value = up.childForFieldName("value");
      if (value !== null && FUNCTIONS.has(value.type)) return up.childForFieldName("name")!.text;
    }
  }
  return null;
}

// What the value `node` is, as far as the file says.
function receiverOf(node: Node | null): Receiver {
  if (node === null) return { kind: "unknown" };
  if (node.type === "this") return enclosingClass(node);
  if (node.type === "non_null_expression" || node.type === "parenthesized_expression") {
    return receiverOf(node.namedChildren[0] ?? null);
  }
  if (node.type === "member_expression") {
    // `process.env.name`: a member of a global's member is of no type the file declares either.
    let root: Node | null = node;
    while (root?.type === "member_expression") root = root.childForFieldName("object");
    const global = root?.type === "identifier" && lookUp(root, root.text) === null;
    if (global) return { kind: "unknown", global };
    // `this.#options.hooks`: the member of a value of evident type is of its annotated type.
    const property = node.childForFieldName("property");
    const on = receiverOf(node.childForFieldName("object"));
    const named = property?.type === "property_identifier" ||
      property?.type === "private_property_identifier";
    const evident = on.kind !== "unknown" && on.kind !== "props";
    return named && evident ? { kind: "property", of: property.text, on } : unknownFrom(on);
  }
  if (node.type === "as_expression") {
    const [value, type] = node.namedChildren;
    return castReceiver(value ?? null, type ?? null);
  }
  if (node.type === "type_assertion") {
    // `(<HttpError>error).status`: as with `as`.
    const [written, value] = node.namedChildren;
    const typed = written?.type === "type_arguments" ? written.namedChildren[0] : null;
    return castReceiver(value ?? null, typed ?? null);
  }
  const loaded = namespaceLoaded(node);
  if (loaded !== null) return { kind: "module", module: loaded };
  if (node.type === "await_expression") {
    // `await load()`: what the call returns, awaited (a promise's value is not the promise).
    const awaited = receiverOf(node.namedChildren[0] ?? null);
    return awaited.kind === "result" ? { ...awaited, awaited: true } : awaited;
  }
  // `logs[0].args`, `logs.at(-1).args`: an element of an array of evident element type.
  const element = elementRead(node);
  if (element !== null) return element;
  if (node.type === "call_expression") return callResult(node);
  if (node.type === "new_expression") {
    // `new Hono().get('/')`: a member of the value just constructed.
    const made = node.childForFieldName("constructor");
    return made?.type === "identifier" ? { kind: "type", type: made.text } : { kind: "unknown" };
  }
  if (node.type !== "identifier" && node.type !== "type_identifier") return literalReceiver(node);
  const tested = narrowed(node);
  if (tested !== null) return { kind: "type", type: tested };
  const binding = lookUp(node, node.text);
  if (binding === null) return { kind: "unknown", global: true };
  if (binding.kind === "import") {
    return binding.imported === "*"
      ? { kind: "module", module: binding.module }
      : { kind: "value", of: node.text };
  }
  if (binding.kind !== "local" && binding.kind !== "file") return { kind: "unknown" };
  return typeOfDeclaration(node, binding);
}

// Literals of the platform's strings, numbers and patterns: their members are none of the files'.
const PLATFORM_LITERALS = new Set(["string", "template_string", "number", "regex"]);

// What a value written as a literal is (`["a", "b"].join(eol)`, `"text".trim()`): the platform's
// array, string, number or pattern; of no evident type for another expression.
function literalReceiver(node: Node): Receiver {
  if (node.type === "array") return { kind: "type", type: "Array" };
  return PLATFORM_LITERALS.has(node.type) ? { kind: "unknown", global: true } : { kind: "unknown" };
}

// The module whose namespace a node is: `await import("./prompt")`, and `import("./prompt")` in a
// type query (`typeof import("./prompt").prompt`); null otherwise.
function namespaceLoaded(node: Node): string | null {
  if (node.type === "await_expression") return loadedModule(node.namedChildren[0] ?? null);
  return node.type === "call_expression" && typeQueried(node) ? loadedModule(node) : null;
}

// The module an `import("./prompt")` call loads (its promise gives the module's namespace), or
// null for another node.
function loadedModule(node: Node | null): string | null {
  if (node?.type !== "call_expression" || node.childForFieldName("function")?.type !== "import") {
    return null;
  }
  const source = node.childForFieldName("arguments")?.namedChildren[0];
  if (source?.type !== "string") return null;
  return source.namedChildren.find((child) => child?.type === "string_fragment")?.text ?? null;
}

// Whether a node is inside a type query (`typeof import("./prompt").prompt`), where a call of
// `import` names the module, not its promise.
function typeQueried(node: Node): boolean {
  for (let up = node.parent; up !== null; up = up.parent) {
    if (up.type === "type_query") return true;
    if (up.type !== "member_expression") return false;
  }
  return false;
}

// What a call returns: `createPool()`, a function the file declares or imports (or a value of a
// type with a call signature); `client.get(url)`, a method of a value of evident type.
function callResult(call: Node): Receiver {
  const result = calledResult(call);
  // `await load<T>()`, parsed as a call of `await load`: the promise's value.
  const awaited = call.childForFieldName("function")?.type === "await_expression";
  return awaited && result.kind === "result" ? { ...result, awaited: true } : result;
}

// What `callResult` finds, before an `await` the parse put inside the call is counted.
function calledResult(call: Node): Receiver {
  const callee = calleeOf(call);
  if (callee?.type === "identifier") {
    const binding = lookUp(callee, callee.text);
    return binding === null
      ? { kind: "unknown" }
      : made({ kind: "result", of: callee.text }, { name: callee, binding });
  }
  const property = callee?.type === "member_expression"
    ? callee.childForFieldName("property")
    : null;
  if (!callee || property?.type !== "property_identifier") return { kind: "unknown" };
  const on = receiverOf(callee.childForFieldName("object"));
  return on.kind === "unknown" || on.kind === "props" || on.kind === "module"
    ? unknownFrom(on)
    : { kind: "result", of: property.text, on };
}

// The function a call calls. `await load<T>(options)` parses as a call of `await load` (the grammar
// takes the type arguments after the awaited name), so an awaited callee is the name awaited.
function calleeOf(call: Node): Node | null {
  const callee = call.childForFieldName("function");
  return callee?.type === "await_expression" ? callee.namedChildren[0] ?? null : callee;
}

// A receiver of no evident type reached through `on`: made by the call that made `on`'s value.
function unknownFrom(on: Receiver): Receiver {
  return on.kind === "unknown" && on.made !== undefined
    ? { kind: "unknown", made: on.made }
    : { kind: "unknown" };
}

// The name node where `binding` (of `name`, a local or a file's own) is declared; null for
// another binding.
function declaredAt(name: Node, binding: Binding | null): Node | null {
  if (binding?.kind !== "local" && binding?.kind !== "file") return null;
  return rootOf(name).descendantForPosition({ row: binding.line - 1, column: binding.column });
}

// `receiver` (a call's result or a callback's parameter), with the type names of the call that
// set the variable `name` (when one did); `binding`: the name's, when already looked up.
function made<T extends Receiver & { made?: string[] }>(
  receiver: T,
  named: { name: Node; binding?: Binding | null },
): T {
  const { name } = named;
  const binding = named.binding === undefined ? lookUp(name, name.text) : named.binding;
  const at = declaredAt(name, binding);
  const names = at?.parent ? callNames(at.parent) : null;
  return names === null ? receiver : { ...receiver, made: names };
}

function union(some: string[] | undefined, others: string[]): string[] {
  return some === undefined ? others : [...new Set([...some, ...others])];
}

// For a variable declarator without an annotation whose value is a call (or `await` of one)
// written with type names (its type arguments, its arguments' annotations and casts): those, all
// a reader is told of the value's type when no declaration names what the callee returns (a
// generic's result is inferred from them); null for another declarator.
function callNames(declarator: Node): string[] | null {
  if (declarator.type !== "variable_declarator") return null;
  let names = madeNames.get(declarator.id);
  if (names !== undefined) return names;
  let value = declarator.childForFieldName("value");
  if (value?.type === "await_expression") value = value.namedChildren[0] ?? null;
  names = null;
  if (declarator.childForFieldName("type") === null && value?.type === "call_expression") {
    // A call naming no type may still return one its callee, receiver or arguments carry
    // (`trackedConnections.get(name)` of a `Map<string, Info>`): nothing is told then, unless
    // it passes an object literal the parse saw (one spelling the name): a type inferred from
    // that literal (`create(combine({ count: 1 }, ...))`) is its own.
    const written = typeNames(value);
    if (written.length > 0) names = written;
    else if (value.descendantsOfType("object").some((object) => object && ownMembers(object))) {
      names = [];
    }
  }
  madeNames.set(declarator.id, names);
  return names;
}

// The type names written in `node`.
function typeNames(node: Node): string[] {
  const types = node.descendantsOfType("type_identifier");
  return [...new Set(types.flatMap((type) => type === null ? [] : [type.text]))];
}

// Whether an object literal's members are all its own: it spreads no other value (`{ ...base }`
// may have that value's members), and it was parsed (a literal not spelling the asked name is
// left out of the parse, `{}`: what it holds is not known).
function ownMembers(object: Node): boolean {
  const members = object.namedChildren.filter((child) => child?.type !== "comment");
  return members.length > 0 && members.every((child) => child?.type !== "spread_element");
}

// The class a value is tested to be an instance of where the test holds: the right of
// `x instanceof C && ...`, the branch of `if (x instanceof C)` or of `x instanceof C ? ... : ...`
// (within the function the test is written in); null elsewhere.
function narrowed(node: Node): string | null {
  let below = node;
  for (let up = node.parent; up !== null; below = up, up = up.parent) {
    if (FUNCTIONS.has(up.type) || CLASSES.has(up.type)) return null;
    let test: Node | null = null;
    if (up.type === "binary_expression" && up.childForFieldName("right")?.id === below.id) {
      if (up.childForFieldName("operator")?.type === "&&") test = up.childForFieldName("left");
    } else if (up.type === "if_statement" && up.childForFieldName("consequence")?.id === below.id) {
      test = up.childForFieldName("condition");
    } else if (
      up.type === "ternary_expression" && up.childForFieldName("consequence")?.id === below.id
    ) {
      test = up.childForFieldName("condition");
    }
    const type = test === null ? null : instanceTest(test, node.text);
    if (type !== null) return type;
  }
  return null;
}

// The class `test` (a condition, its `&&` parts) says the value `name` is an instance of.
function instanceTest(test: Node, name: string): string | null {
  if (test.type === "parenthesized_expression") {
    const inner = test.namedChildren[0];
    return inner ? instanceTest(inner, name) : null;
  }
  if (test.type !== "binary_expression") return null;
  const operator = test.childForFieldName("operator")?.type;
  const left = test.childForFieldName("left");
  const right = test.childForFieldName("right");
  if (left === null || right === null) return null;
  if (operator === "&&") return instanceTest(left, name) ?? instanceTest(right, name);
  if (operator !== "instanceof" || left.type !== "identifier" || left.text !== name) return null;
  return right.type === "identifier" ? right.text : null;
}

// For a type name written at `at` that is a type parameter of an enclosing declaration
// (`<C extends Connector>(connector: C)`): the named type it is constrained to, whose members a
// value of it has; null for another name, or a parameter constrained to no named type.
function constraintOf(at: Node, name: string): string | null {
  for (let up = at.parent; up !== null; up = up.parent) {
    const parameters = up.childForFieldName("type_parameters");
    for (const parameter of parameters?.namedChildren ?? []) {
      if (parameter?.childForFieldName("name")?.text !== name) continue;
      const constraint = parameter.childForFieldName("constraint")?.namedChildren[0] ?? null;
      return constraint === null ? null : literalType(constraint);
    }
  }
  return null;
}

// The type a declared name evidently has: its annotation's name, the class
// it is constructed from, or the class, enum or namespace it names itself.
function typeOfDeclaration(node: Node, declared: Declared): Receiver {
  if (["class", "interface", "enum", "module"].includes(declared.declares)) {
    return { kind: "type", type: node.text };
  }
  const root = rootOf(node);
  const at = root.descendantForPosition({ row: declared.line - 1, column: declared.column });
  const holder = at?.parent;
  if (!holder) return { kind: "unknown" };
  const read = at === null ? null : propertyRead(at, holder) ?? elementSet(at, holder);
  if (read !== null) return read;
  const typed = holder.childForFieldName("type");
  const queried = typed === null ? null : returnTypeQuery(typed);
  if (queried !== null) return queried;
  const typeName = typed === null ? null : namedType(typed);
  if (typed !== null && typeName !== null) {
    return { kind: "type", type: constraintOf(typed, typeName) ?? typeName };
  }
  const annotation = typed === null ? null : annotatedReceiver(typed);
  if (annotation !== null) return annotation;
  if (holder.type === "variable_declarator") {
    const value = holder.childForFieldName("value");
    if (typed === null && value?.type === "array") return { kind: "type", type: "Array" };
    if (typed === null && value?.type === "object" && ownMembers(value)) {
      // `const mock = { put: vi.fn() }`: of the literal's own type, naming only the types in it.
      return { kind: "unknown", made: typeNames(value), object: linesOf(value) };
    }
    if (value?.type === "call_expression" || value?.type === "await_expression") {
      const result = givenType(value, receiverOf(value));
      const names = callNames(holder);
      if (names === null) return result;
      // `const state = useStore()`: the names of both calls.
      if (result.kind === "result") return { ...result, made: union(result.made, names) };
      return result.kind === "unknown" && result.global !== true
        ? { ...result, made: union(result.made, names) }
        : result;
    }
    if (value?.type === "new_expression") {
      const made = value.childForFieldName("constructor");
      if (made?.type === "identifier") return { kind: "type", type: made.text };
    }
    // `const ctx = {} as TestContext`: of the type cast to.
    if (typed === null && value?.type === "as_expression") return receiverOf(value);
  }
  if (holder.type === "for_in_statement" && holder.childForFieldName("left")?.id === at?.id) {
    return iterated(holder.childForFieldName("right"));
  }
  const element = holder.type === "array_pattern" && at !== null
    ? patternElement(holder, at)
    : null;
  if (element !== null) return element;
  if (declared.declares === "parameter" && at !== null) return callbackParameter(at);
  return { kind: "unknown" };
}

// What a value cast to `type` is: `(error as HttpError).status` of the type cast to; `as any` (or
// another built-in type): of none the files declare; `as const`: the value's own.
function castReceiver(value: Node | null, type: Node | null): Receiver {
  if (!type) return receiverOf(value);
  if (type.type === "predefined_type") return { kind: "unknown", global: true };
  const named = namedType(type);
  return named === null ? { kind: "unknown" } : { kind: "type", type: named };
}

// For a name an array pattern declares: `const [first] = await load()`, an element of the array
// the call returns; `for (const [index, item] of items.entries())`, the second, an element of items;
// null for another pattern.
function patternElement(pattern: Node, name: Node): Receiver | null {
  const holder = pattern.parent;
  if (
    holder?.type === "variable_declarator" && holder.childForFieldName("name")?.id === pattern.id
  ) {
    return returnedElements(holder);
  }
  if (holder?.type !== "for_in_statement" || holder.childForFieldName("left")?.id !== pattern.id) {
    return null;
  }
  // Its place in the pattern: the commas before it (`[, item]` skips the index).
  const before = pattern.children.findIndex((child) => child?.id === name.id);
  const place = pattern.children.slice(0, before).filter((child) => child?.type === ",").length;
  const entries = holder.childForFieldName("right");
  const callee = entries?.type === "call_expression" ? entries.childForFieldName("function") : null;
  const method = callee?.type === "member_expression" ? callee.childForFieldName("property") : null;
  const none = entries?.childForFieldName("arguments")?.namedChildren.length === 0;
  if (place !== 1) return null;
  const record = objectRead(entries, "entries");
  if (record !== null) return { kind: "entry", of: receiverOf(record) };
  return method?.text === "entries" && none
    ? iterated(callee?.childForFieldName("object") ?? null)
    : null;
}

// For a call of the platform's `Object.<method>(value)` (`Object.entries(defs)`): the value; null
// for another node.
function objectRead(call: Node | null, method: string): Node | null {
  const callee = call?.type === "call_expression" ? call.childForFieldName("function") : null;
  const object = callee?.type === "member_expression" ? callee.childForFieldName("object") : null;
  if (object?.type !== "identifier" || object.text !== "Object" || lookUp(object, "Object")) {
    return null;
  }
  if (callee?.childForFieldName("property")?.text !== method) return null;
  const list = call?.childForFieldName("arguments")?.namedChildren ?? [];
  return list.length === 1 ? list[0] : null;
}

// The receivers a property of a value is read from when its annotated type is followed.
const READ_FROM = new Set<Receiver["kind"]>([
  "this",
  "type",
  "value",
  "property",
  "result",
  "element",
  "callback",
  "signature",
  "handler",
]);

// For a variable set from a property of a value of evident type (`const plugin =
// scope.plugin_`), or destructured from such a value (`const { plugin_ } = scope`, `{ plugin_:
// renamed }`), without an annotation of its own: that property's value (of its annotated type);
// null for other names.
function propertyRead(name: Node, holder: Node): Receiver | null {
  if (holder.type === "variable_declarator") {
    if (holder.childForFieldName("name")?.id !== name.id) return null;
    if (holder.childForFieldName("type") !== null) return null;
    let value = holder.childForFieldName("value");
    while (value?.type === "non_null_expression" || value?.type === "parenthesized_expression") {
      value = value.namedChildren[0] ?? null;
    }
    if (value?.type !== "member_expression") return null;
    const read = receiverOf(value);
    return read.kind === "property" ? read : null;
  }
  const shorthand = name.type === "shorthand_property_identifier_pattern" &&
    holder.type === "object_pattern";
  const renamed = holder.type === "pair_pattern" &&
    holder.childForFieldName("value")?.id === name.id;
  if (!shorthand && !renamed) return null;
  const key = shorthand ? name : holder.childForFieldName("key");
  if (
    key?.type !== "property_identifier" && key?.type !== "shorthand_property_identifier_pattern"
  ) {
    return null;
  }
  const on = destructured(name);
  return READ_FROM.has(on.kind) ? { kind: "property", of: key.text, on } : null;
}

// For a variable set, without an annotation, to an element read from an array (`const match =
// matches[0]`, `matches.at(-1)!`): what `elementRead` says that element is; null otherwise.
function elementSet(name: Node, holder: Node): Receiver | null {
  if (holder.type !== "variable_declarator" || holder.childForFieldName("name")?.id !== name.id) {
    return null;
  }
  if (holder.childForFieldName("type") !== null) return null;
  let value = holder.childForFieldName("value");
  while (value?.type === "non_null_expression" || value?.type === "parenthesized_expression") {
    value = value.namedChildren[0] ?? null;
  }
  return value === null ? null : elementRead(value);
}

// For an unannotated parameter (its name, or its destructuring pattern) of a function passed as
// an argument (`app.get("/", (event) => ...)`): what the callee's parameter types it as.
function callbackParameter(name: Node): Receiver {
  let parameter = name;
  const holder = name.parent;
  if (holder?.type === "required_parameter" || holder?.type === "optional_parameter") {
    if (holder.childForFieldName("type") !== null) return { kind: "unknown" };
    parameter = holder;
  }
  let fn = parameter.parent;
  let index = 0;
  if (fn?.type === "formal_parameters") {
    index = fn.namedChildren.filter((child) => child?.type !== "comment")
      .findIndex((child) => child?.id === parameter.id);
    fn = fn.parent;
  } else if (fn?.type !== "arrow_function" || fn.childForFieldName("parameter")?.id !== name.id) {
    return { kind: "unknown" };
  }
  const list = fn?.parent;
  const call = list?.parent;
  const literalMethod = fn?.type === "method_definition" && list?.type === "object";
  if (fn && (list?.type === "pair" || list?.type === "array" || literalMethod)) {
    return handlerParameter(fn, index);
  }
  if (list?.type === "variable_declarator" && list.childForFieldName("value")?.id === fn?.id) {
    const typed = list.childForFieldName("type");
    const type = typed === null ? null : namedType(typed);
    if (type === null) return { kind: "unknown" };
    const { valueArguments: given } = valueTypes(list.childForFieldName("name") ?? list);
    return { kind: "signature", type, parameter: index, ...(given ? { given } : {}) };
  }
  if (!fn || list?.type !== "arguments" || call?.type !== "call_expression") {
    return { kind: "unknown" };
  }
  const argument = list.namedChildren.findIndex((child) => child?.id === fn.id);
  const at = { argument, parameter: index };
  const callee = calleeOf(call);
  if (callee?.type === "identifier") {
    const state = stateParameter(list, at);
    if (state !== null) return state;
    return made({ kind: "callback", callee: callee.text, ...at }, { name: callee });
  }
  const property = callee?.type === "member_expression"
    ? callee.childForFieldName("property")
    : null;
  if (!callee || !property) return { kind: "unknown" };
  const given = argument === 0 && index === 0 ? firstGiven(callee, property.text) : null;
  if (given !== null) return given;
  const of = receiverOf(callee.childForFieldName("object"));
  const method = { kind: "callback" as const, callee: property.text, ...at };
  if (of.kind === "module") return { ...method, module: of.module };
  // `$store.listen((value, oldValue) => ...)` of `let $store = map<{ a: number }>()`: the store's
  // methods hand their callbacks values of its type argument.
  const typed = argument === 0 ? madeTypeArgument(call) : null;
  if (typed?.type === "object_type") return { ...method, of, typedAt: linesOf(typed) };
  if (of.kind === "unknown" || of.kind === "props") return unknownFrom(of);
  return { ...method, of };
}

// What a method given a function first gives its first parameter, when the method's object says:
// `layers.filter((layer) => ...)`, an element of the array; `import("./prompt").then((m) => ...)`,
// the module's namespace; null otherwise.
function firstGiven(callee: Node, method: string): Receiver | null {
  const object = callee.childForFieldName("object");
  if (ITERATING.has(method)) {
    const element = iteratedElement(object, 0);
    return element.kind === "unknown" ? null : element;
  }
  const loaded = method === "then" ? loadedModule(object) : null;
  return loaded === null ? null : { kind: "module", module: loaded };
}

// For the first parameter of a function passed first to a state setter, a parameter of a function
// passed to a call written with a type argument (`set((s) => ({ n: s.n + 1 }))` inside
// `create<State>()((set) => ...)`): of that type argument (a named type, or the anonymous object
// type's lines); null otherwise.
function stateParameter(list: Node, at: { argument: number; parameter: number }): Receiver | null {
  if (at.argument !== 0 || at.parameter !== 0) return null;
  const typed = setterType(list);
  const callee = list.parent === null ? "" : calleeOf(list.parent)?.text ?? "";
  if (typed?.type === "object_type") {
    return { kind: "callback", callee, ...at, typedAt: linesOf(typed) };
  }
  const named = typed === null ? null : literalType(typed);
  return named === null ? null : { kind: "type", type: named };
}

// For a parameter at `index` of the function `fn`, the value of a property of an object literal
// or an element of the array that is (`{ beforeRequest: [(state) => ...] }`): what that property's
// type gives it, when the literal's type is evident.
function handlerParameter(fn: Node, index: number): Receiver {
  // A literal's method (`{ add(route) { } }`) is its own key's value.
  let pair = fn.type === "method_definition" ? fn : fn.parent;
  const element = pair?.type === "array";
  if (element) pair = pair?.parent ?? null;
  const key = pair?.type === "pair" || pair?.type === "method_definition"
    ? pair.childForFieldName(pair.type === "pair" ? "key" : "name")
    : null;
  const object = pair?.parent;
  if (key?.type !== "property_identifier" || object?.type !== "object") return { kind: "unknown" };
  const outer = objectContext(object);
  const typed = outer.type !== null || outer.argument !== undefined || outer.nested !== undefined;
  return typed
    ? { kind: "handler", key: key.text, outer, element, parameter: index }
    : { kind: "unknown" };
}

// The platform's array methods whose callback's first parameter is an element of the array.
const ITERATING = new Set([
  "every",
  "filter",
  "find",
  "findIndex",
  "findLast",
  "findLastIndex",
  "flatMap",
  "forEach",
  "map",
  "some",
]);

// What an element of the array `node` is, through the parentheses, defaults (`layers || []`) and
// calls keeping its elements (`layers.filter(...)`) around it: an element of a variable's array
// (as `iterated`), or of a member's of a value of evident type (`config.layers`).
function iteratedElement(node: Node | null, depth: number): Receiver {
  if (node === null || depth > FOLLOW_CALLS) return { kind: "unknown" };
  if (node.type === "parenthesized_expression") {
    return iteratedElement(node.namedChildren[0] ?? null, depth + 1);
  }
  const operator = node.type === "binary_expression"
    ? node.childForFieldName("operator")?.type
    : undefined;
  if (operator === "||" || operator === "??") {
    const right = node.childForFieldName("right");
    if (right?.type !== "array" || right.namedChildren.length > 0) return { kind: "unknown" };
    return iteratedElement(node.childForFieldName("left"), depth + 1);
  }
  const callee = node.type === "call_expression" ? calleeOf(node) : null;
  if (callee?.type === "member_expression") {
    const method = callee.childForFieldName("property")?.text ?? "";
    if (!SAME_ELEMENTS.has(method)) return { kind: "unknown" };
    return iteratedElement(callee.childForFieldName("object"), depth + 1);
  }
  const property = node.type === "member_expression" ? node.childForFieldName("property") : null;
  if (property?.type === "property_identifier") {
    const on = receiverOf(node.childForFieldName("object"));
    const evident = on.kind !== "unknown" && on.kind !== "props" && on.kind !== "module";
    return evident ? { kind: "element", of: property.text, on } : { kind: "unknown" };
  }
  return iterated(node);
}

// The platform's array methods that give one of the array's elements.
const ELEMENT_METHODS = new Set(["at", "find", "findLast", "pop", "shift"]);

// For an element read from an array by index (`logs[0]`) or by a method giving one
// (`logs.at(-1)`, `logs.find(...)`): what `iterated` says of that array's elements when it is
// evident; null otherwise.
function elementRead(node: Node): Receiver | null {
  let array: Node | null = null;
  if (node.type === "subscript_expression") {
    const index = node.childForFieldName("index");
    if (index?.type === "number" || index?.type === "identifier") {
      array = node.childForFieldName("object");
    }
  } else if (node.type === "call_expression") {
    const callee = node.childForFieldName("function");
    const method = callee?.type === "member_expression"
      ? callee.childForFieldName("property")
      : null;
    if (method && ELEMENT_METHODS.has(method.text)) array = callee!.childForFieldName("object");
  }
  if (array?.type !== "identifier") return null;
  const element = iterated(array);
  return element.kind === "unknown" ? null : element;
}

// What an element of the array `node` is (`for (const x of node)`): of the element type its
// declaration names (in the file, or in the module it is imported from); an array made of its
// elements (`[...plugins].reverse()`, `plugins.slice(1)`) holds the same.
function iterated(array: Node | null): Receiver {
  // `Object.values(defs)`: the values of a record.
  const record = objectRead(array, "values");
  if (record !== null) return { kind: "entry", of: receiverOf(record) };
  const node = sameElements(array);
  if (node?.type !== "identifier") return { kind: "unknown" };
  const binding = lookUp(node, node.text);
  if (binding?.kind === "import" && binding.imported !== "*") {
    return { kind: "element", of: node.text };
  }
  if ((binding?.kind === "local" || binding?.kind === "file") && binding.elementType) {
    // `statements: T[]` of `<T extends TokenLocation>`: an element is of the constraint.
    const type = constraintOf(node, binding.elementType) ?? binding.elementType;
    return { kind: "type", type };
  }
  const declarator = declaredAt(node, binding)?.parent ?? null;
  return declarator?.type === "variable_declarator"
    ? returnedElements(declarator)
    : { kind: "unknown" };
}

// The methods of an array that give an array of (some of) its own elements.
const SAME_ELEMENTS = new Set([
  "reverse",
  "slice",
  "filter",
  "sort",
  "concat",
  "toReversed",
  "toSorted",
]);

// The array whose elements `node` holds: itself, or the array a copy (`[...items]`) or a method
// of `SAME_ELEMENTS` made it from.
function sameElements(node: Node | null): Node | null {
  let at = node;
  for (let hops = 0; at !== null && hops < FOLLOW_CALLS; hops++) {
    const [only] = at.type === "array" && at.namedChildren.length === 1 ? at.namedChildren : [];
    const callee = at.type === "call_expression" ? at.childForFieldName("function") : null;
    const method = callee?.type === "member_expression"
      ? callee.childForFieldName("property")?.text
      : undefined;
    if (at.type === "parenthesized_expression") at = at.namedChildren[0] ?? null;
    else if (only?.type === "spread_element") at = only.namedChildren[0] ?? null;
    else if (method !== undefined && SAME_ELEMENTS.has(method)) {
      at = callee?.childForFieldName("object") ?? null;
    } else return at;
  }
  return at;
}

// For a variable declared without an annotation and set from a call (or `await` of one) of a
// function the file declares or imports (`const plugins = await resolvePlugins()`): an element of
// the array that call returns; else of no evident type.
function returnedElements(declarator: Node): Receiver {
  if (declarator.childForFieldName("type") !== null) return { kind: "unknown" };
  let value = declarator.childForFieldName("value");
  const awaited = value?.type === "await_expression";
  if (awaited) value = value?.namedChildren[0] ?? null;
  const callee = value?.type === "call_expression" ? value.childForFieldName("function") : null;
  if (callee?.type !== "identifier" || lookUp(callee, callee.text) === null) {
    return { kind: "unknown" };
  }
  // `proxyMap<number, MapItem>()`: the type names the call is written with, all a reader is told
  // of its elements when the callee writes no return type.
  const names = callNames(declarator);
  const made = names === null ? {} : { made: names };
  return {
    kind: "result",
    of: callee.text,
    element: true,
    ...(awaited ? { awaited } : {}),
    ...made,
  };
}

// For the name of a variable or parameter annotated as an array of a named type (`Route[]`,
// `readonly Route[]`, `Array<Route>`): that type; null for other names.
function elementType(name: Node): string | null {
  const holder = name.parent;
  const field = holder?.type === "variable_declarator" ? "name" : "pattern";
  if (
    (field === "pattern" && !PARAMETERS.has(holder?.type ?? "")) ||
    holder?.childForFieldName(field)?.id !== name.id
  ) {
    return null;
  }
  let typed = holder.childForFieldName("type");
  if (typed?.type === "type_annotation") typed = typed.namedChildren[0] ?? null;
  return typed === null ? null : arrayElement(withoutNullish(typed));
}

// A union type of one part besides `undefined` and `null` (`Route[] | undefined`): that part; else
// the type itself.
function withoutNullish(typed: Node): Node {
  if (typed.type !== "union_type") return typed;
  const parts = unionParts(typed).filter((part) => !nullish(part));
  return parts.length === 1 ? parts[0] : typed;
}

// Whether a type is `undefined` or `null`.
function nullish(typed: Node): boolean {
  return typed.text === "undefined" || typed.text === "null";
}

// The named types of a union annotation besides `undefined` and `null` (`TypeImport |
// StaticImport`, `Other | null`), once each; null when it is no union, or has another arm.
function unionArms(annotation: Node): string[] | null {
  const typed = annotation.type === "type_annotation" ? annotation.namedChildren[0] : annotation;
  if (typed?.type !== "union_type") return null;
  const names = new Set<string>();
  for (const part of unionParts(typed)) {
    if (nullish(part)) continue;
    const name = namedType(part);
    if (name === null) return null;
    names.add(name);
    // Each arm is looked up on its own: a wider union is of no evident type.
    if (names.size > UNION_ARMS_MOST) return null;
  }
  return names.size === 0 ? null : [...names];
}

// Most named types a union annotation may have to type its values (each is one lookup a member).
const UNION_ARMS_MOST = 16;

const PARAMETERS = new Set(["required_parameter", "optional_parameter"]);

// The methods of an array that add their arguments as elements: an object passed to one is of the
// array's element type.
const ADDING = new Set(["push", "unshift"]);

// For the arguments `list` of `items.push(...)` (or `unshift`) where `items` is a variable or
// parameter annotated as an array of a named type (`patches: Patch[]`): that type; null otherwise,
// and for an object `depth` arrays down (`items.push([{ ... }])` adds an array).
function pushedType(list: Node, depth: number): string | null {
  const callee = depth === 0 && list.parent?.type === "call_expression"
    ? calleeOf(list.parent)
    : null;
  const array = callee?.type === "member_expression" ? callee.childForFieldName("object") : null;
  const method = callee?.childForFieldName("property")?.text ?? "";
  if (array?.type !== "identifier" || !ADDING.has(method)) return null;
  const binding = lookUp(array, array.text);
  const local = binding?.kind === "local" || binding?.kind === "file";
  return local && binding.elementType ? binding.elementType : null;
}

// What `value['name']` or `Type['name']` (`string`: the quoted name) indexes: the value, as a
// member access's object is; a type the file declares or imports (`Input['in']`), else unknown.
function indexed(string: Node): Receiver {
  const holder = string.parent;
  if (holder?.type === "subscript_expression") {
    return receiverOf(holder.childForFieldName("object"));
  }
  let object = holder?.parent?.namedChildren[0] ?? null;
  if (object?.type === "generic_type") object = object.childForFieldName("name");
  if (object?.type !== "type_identifier") return { kind: "unknown" };
  const binding = lookUp(object, object.text);
  if (binding === null) return { kind: "unknown", global: true };
  if (binding.kind === "local" && binding.declares === "type") return constrained(object, binding);
  const named = binding.kind === "import" ||
    (binding.kind === "file" && ["type", "interface", "class", "enum"].includes(binding.declares));
  return named ? { kind: "type", type: object.text } : { kind: "unknown" };
}

// A type parameter (`E extends Env`) is of its constraint's first named type; without one it
// is of no evident type.
function constrained(node: Node, declared: Declared): Receiver {
  const at = rootOf(node).descendantForPosition({
    row: declared.line - 1,
    column: declared.column,
  });
  const parameter = at?.parent;
  if (parameter?.type !== "type_parameter") return { kind: "unknown" };
  const constraint = parameter.childForFieldName("constraint")?.namedChildren[0] ?? null;
  const type = constraint === null ? undefined : namedParts(constraint)[0];
  return type === undefined ? { kind: "unknown" } : { kind: "type", type };
}

// The global utility types whose members are their first type argument's own (`Partial<T>`,
// `Omit<T, "k">`): a value of one is, member by member, of T.
const SAME_MEMBERS = new Set(["Partial", "Required", "Readonly", "Pick", "Omit", "NonNullable"]);

function namedType(annotation: Node): string | null {
  let node: Node | null = annotation.type === "type_annotation"
    ? annotation.namedChildren[0] ?? null
    : annotation;
  if (node?.type === "generic_type") {
    const name = node.childForFieldName("name");
    const of = node.childForFieldName("type_arguments")?.namedChildren[0] ?? null;
    if (name !== null && of !== null && SAME_MEMBERS.has(name.text) && !lookUp(name, name.text)) {
      return namedType(of);
    }
    node = name;
  }
  return node?.type === "type_identifier" ? node.text : null;
}

// For an annotation `ReturnType<typeof f>` or `Awaited<ReturnType<typeof f>>` (the platform's, the
// file declaring neither name): what a call of f returns (awaited), as `const r = await f()` is;
// null for another annotation.
function returnTypeQuery(annotation: Node): Receiver | null {
  let node: Node | null = annotation.type === "type_annotation"
    ? annotation.namedChildren[0] ?? null
    : annotation;
  const platform = (name: string) =>
    node?.type === "generic_type" && node.childForFieldName("name")?.text === name &&
    lookUp(node, name) === null;
  const awaited = platform("Awaited");
  if (awaited) node = node!.childForFieldName("type_arguments")?.namedChildren[0] ?? null;
  if (!platform("ReturnType")) return null;
  const query = node!.childForFieldName("type_arguments")?.namedChildren[0];
  const fn = query?.type === "type_query" ? query.namedChildren[0] : null;
  if (fn?.type !== "identifier") return null;
  return awaited ? { kind: "result", of: fn.text, awaited } : { kind: "result", of: fn.text };
}

// The type a platform wrapper that keeps its members (`Partial<T>`, `Readonly<T>`) is written
// with, the file declaring no type of that name; null for another type.
function wrappedType(typed: Node): Node | null {
  if (typed.type !== "generic_type") return null;
  const name = typed.childForFieldName("name");
  const of = typed.childForFieldName("type_arguments")?.namedChildren[0] ?? null;
  if (name === null || !SAME_MEMBERS.has(name.text) || lookUp(name, name.text)) return null;
  return of;
}

function rootOf(node: Node): Node {
  let root = node;
  while (root.parent !== null) root = root.parent;
  return root;
}

function enclosingClass(node: Node): Receiver {
  for (let up = node.parent; up !== null; up = up.parent) {
    if (CLASSES.has(up.type)) {
      return {
        kind: "this",
        type: up.childForFieldName("name")?.text ?? null,
        heritage: heritageOf(up),
      };
    }
    const literal = literalThis(up);
    if (literal !== null) return literal;
    // A plain function has a `this` of its own; an arrow function sees the enclosing one.
    if (FUNCTIONS.has(up.type) && up.type !== "arrow_function" && up.type !== "method_definition") {
      return { kind: "unknown" };
    }
  }
  return { kind: "this", type: null, heritage: [] };
}

// For a method of an object literal (`{ inc() { }, get double() { } }`, `{ show: function () { }
// }`): what its `this` is, the literal (of its named type, when one is evident); null for
// another node.
function literalThis(fn: Node): Receiver | null {
  const holder = fn.type === "method_definition"
    ? fn.parent
    : fn.type === "function_expression" || fn.type === "function"
    ? fn.parent?.type === "pair" ? fn.parent.parent : null
    : null;
  if (holder?.type !== "object") return null;
  const { type } = objectContext(holder);
  if (type !== null) return { kind: "type", type };
  const literal = { from: holder.startPosition.row + 1, to: holder.endPosition.row + 1 };
  return { kind: "this", type: null, heritage: [], literal };
}

function heritageOf(declaration: Node): string[] {
  const names: string[] = [];
  const visit = (node: Node) => {
    if (node.type === "identifier" || node.type === "type_identifier") names.push(node.text);
    else if (node.type !== "type_arguments") {
      for (const child of node.namedChildren) if (child !== null) visit(child);
    }
  };
  for (const child of declaration.namedChildren) {
    if (child?.type === "class_heritage" || child?.type === "extends_type_clause") visit(child);
  }
  return names;
}

// The type a member declaration belongs to: its class or interface, or the annotated variable
// an object literal initializes.
function declaringType(member: Node, declares: string): Receiver {
  for (let up = member.parent; up !== null; up = up.parent) {
    if (CLASSES.has(up.type) || up.type === "interface_declaration") {
      const hidden = member.namedChildren.some((child) =>
        child?.type === "accessibility_modifier" && child.text === "private"
      );
      return {
        kind: "declaration",
        type: up.childForFieldName("name")?.text ?? null,
        heritage: heritageOf(up),
        declares,
        ...localType(up),
        ...(hidden
          ? { private: { from: up.startPosition.row + 1, to: up.endPosition.row + 1 } }
          : {}),
      };
    }
    if (up.type === "enum_declaration" || up.type === "type_alias_declaration") {
      const type = up.childForFieldName("name")?.text ?? null;
      return { kind: "declaration", type, heritage: [], declares, ...localType(up) };
    }
    if (up.type === "object" && erased(up)) {
      // Typed `any`: no value of the object's type can be named, so only the object holds it.
      const within = { from: up.startPosition.row + 1, to: up.endPosition.row + 1 };
      return { kind: "declaration", type: null, literal: true, within, heritage: [], declares };
    }
    if (up.type === "object" || up.type === "object_type") {
      // An object or object type is its own type: named by the alias, the annotated variable,
      // the `as` or `satisfies` type it makes, else anonymous (then what it is passed to, or
      // the parameter it annotates, says which it is).
      const literal = up.type === "object" ? { literal: true } : {};
      const context = objectContext(up);
      const anonymous = context.type === null && context.argument === undefined &&
        context.nested === undefined;
      // A property's own anonymous type (`state: { count: number }`) is seen where its holder is.
      const open = context.parameter === undefined || context.parameter.index === PROPERTY_TYPE ||
        context.parameter.index === VARIABLE_TYPE;
      const statement = anonymous && open && up.type === "object_type" ? nestedStatement(up) : null;
      const body = statement ?? (anonymous ? enclosingBody(up) : null);
      const within = body === null ? localType(aliasOf(up)) : { within: body };
      const own = up.type === "object" && untypedInitializer(up) ? { untyped: true as const } : {};
      return {
        kind: "declaration",
        ...context,
        ...literal,
        ...within,
        ...own,
        heritage: [],
        declares,
      };
    }
  }
  return { kind: "declaration", type: null, heritage: [], declares };
}

// What a value annotated with `typed` (no one named type) is: of the named arms of a union
// (`matched: TypeImport | StaticImport`, `other: Other | null`), an array (`sent: string[]`, whose
// members are the platform's), of a predefined type (`line: string`: none the files declare; `any`
// aside); null for another annotation.
function annotatedReceiver(typed: Node): Receiver | null {
  const arms = unionArms(typed);
  if (arms !== null) {
    const [type, ...union] = arms;
    return union.length === 0 ? { kind: "type", type } : { kind: "type", type, union };
  }
  const annotated = typed.type === "type_annotation" ? typed.namedChildren[0] : typed;
  if (annotated?.type === "array_type" || annotated?.type === "tuple_type") {
    return { kind: "type", type: "Array" };
  }
  // `line: string`: none of the files' types. Not `any`, nor `unknown`, whose values have their
  // members read once narrowed (`if (value instanceof Box) value.size`).
  if (
    annotated?.type === "predefined_type" && annotated.text !== "any" &&
    annotated.text !== "unknown"
  ) {
    return { kind: "unknown", global: true };
  }
  // `options: { packageManager: string }`: a value of that anonymous type, its members the ones
  // written there (another type's of the name are not its).
  if (annotated?.type === "object_type") return { kind: "unknown", object: linesOf(annotated) };
  return null;
}

// Whether an object literal is set, without an annotation, to a variable: itself, or through keys
// of object literals and elements of array literals (`const tests = { a: [{ ... }] }`), or cast
// `as const`; no call, annotation or other cast gives it a type.
function untypedInitializer(object: Node): boolean {
  let value = object;
  for (let up = object.parent; up !== null; value = up, up = up.parent) {
    if (up.type === "pair" && up.childForFieldName("value")?.id === value.id) {
      up = up.parent;
      if (up?.type !== "object") return false;
      continue;
    }
    if (up.type === "array" || up.type === "parenthesized_expression") continue;
    if (up.type === "as_expression" && up.lastChild?.text === "const") continue;
    return up.type === "variable_declarator" && up.childForFieldName("value")?.id === value.id &&
      up.childForFieldName("type") === null;
  }
  return false;
}

// Whether an object literal is typed `any` (or `unknown`): returned from a function declared to
// return it, or cast to it (`{ ... } as any`).
function erased(object: Node): boolean {
  let up = object.parent;
  while (up?.type === "parenthesized_expression") up = up.parent;
  if (up?.type === "as_expression") return isAny(up.namedChildren[1] ?? null);
  const fn = up === null ? null : returningFunction(up);
  const returned = fn?.childForFieldName("return_type");
  return isAny(returned?.type === "type_annotation" ? returned.namedChildren[0] : null);
}

function isAny(type: Node | null | undefined): boolean {
  return type?.type === "predefined_type" && (type.text === "any" || type.text === "unknown");
}

// For a type alias, interface or class declared in a block (`it("...", () => { type State = ...
// })`, each test's own `class Counter`): the block's lines, where its name is known; nothing
// elsewhere. A class of a function body that returns a value is not held there: its instances
// (or the class) may leave with what it returns.
function localType(declaration: Node | null): { within?: { from: number; to: number } } {
  if (declaration === null) return {};
  const isClass = CLASSES.has(declaration.type);
  if (!isClass && !TYPE_HOLDERS.has(declaration.type)) return {};
  const block = declaration.parent;
  if (block?.type !== "statement_block") return {};
  if (isClass && block.parent !== null && FUNCTIONS.has(block.parent.type)) {
    let returns = returning.get(block.id);
    if (returns === undefined) returning.set(block.id, returns = returnsValue(block));
    if (returns) return {};
  }
  return { within: { from: block.startPosition.row + 1, to: block.endPosition.row + 1 } };
}

// The type alias an object type is the value of (or an arm of), or null.
function aliasOf(object: Node): Node | null {
  const holder = typeHolder(object.parent);
  return holder?.type === "type_alias_declaration" ? holder : null;
}

// What holds a type, past the unions, intersections and parentheses it is a part of and the
// utility types keeping its members (`Readonly<{ ... }>`: the alias's members are the object's).
function typeHolder(from: Node | null): Node | null {
  let holder = from;
  for (;;) {
    while (holder !== null && TYPE_COMBINATIONS.has(holder.type)) holder = holder.parent;
    const indexed = holder === null ? null : indexedMapped(holder);
    if (indexed !== null) {
      holder = indexed.parent;
      continue;
    }
    const generic = holder?.type === "type_arguments" ? holder.parent : null;
    const name = generic?.type === "generic_type" ? generic.childForFieldName("name") : null;
    if (!generic || !name || !SAME_MEMBERS.has(name.text)) return holder;
    holder = generic.parent;
  }
}

// For the value type's annotation of a mapped type indexed by its keys (`{ [K in keyof T]: { name:
// K } }[keyof T]`, whose values are its arms): that indexed access; null for another node.
function indexedMapped(annotation: Node): Node | null {
  const signature = annotation.type === "type_annotation" ? annotation.parent : null;
  if (signature?.type !== "index_signature") return null;
  if (!signature.namedChildren.some((child) => child?.type === "mapped_type_clause")) return null;
  const mapped = signature.parent;
  const indexed = mapped?.parent;
  return mapped?.type === "object_type" && indexed?.type === "lookup_type" &&
      indexed.namedChildren[0]?.id === mapped.id
    ? indexed
    : null;
}

// The types within which an anonymous object type has no values a reader can name: a function
// type, a cast (and a call's type argument, below).
const NESTING_TYPES = new Set(["function_type", "as_expression", "satisfies_expression"]);

const STATEMENT_HOLDERS = new Set(["program", "statement_block", "switch_case", "switch_default"]);

// For an anonymous object type written in code inside a call's type argument
// (`redux<{ count: number }>(...)`), a function type or a cast
// (`(state as { count: number }).count`): the lines of the statement writing it (of the block of
// the variable it is set to), where its values are; null elsewhere (a named type's part has values wherever the name is used, an annotation's
// type argument, `Array<{ id: string }>`, wherever the annotated name is, and a constructor's,
// `new Hono<{ Bindings: { ... } }>()`, wherever the instance is).
function nestedStatement(type: Node): { from: number; to: number } | null {
  let nested = false;
  let assigned = false;
  for (let up = type.parent; up !== null; up = up.parent) {
    if (NESTING_TYPES.has(up.type)) nested = true;
    // `const envelope = JSON.parse(text) as { error: ... }`: the variable's block.
    const cast = up.type === "as_expression" || up.type === "satisfies_expression";
    if (cast && up.parent?.type === "variable_declarator") assigned = true;
    if (up.type === "type_arguments" && up.parent?.type === "call_expression") {
      nested = true;
    }
    if (TYPE_HOLDERS.has(up.type) || CLASSES.has(up.type)) return null;
    const holder = up.parent;
    if (holder !== null && STATEMENT_HOLDERS.has(holder.type)) {
      const lines = assigned ? holder : up;
      if (!nested || lines.type === "program") return null;
      return { from: lines.startPosition.row + 1, to: lines.endPosition.row + 1 };
    }
  }
  return null;
}

// The lines of the function body an anonymous object (type) is written in, where its type is
// known by no name: null at the top of the file, or when the function returns a value (the
// object, or a value holding it, may leave with it).
function enclosingBody(object: Node): { from: number; to: number } | null {
  let below = object;
  for (let up = object.parent; up !== null; below = up, up = up.parent) {
    if (up.type === "arrow_function" && up.childForFieldName("body")?.id === below.id) {
      if (below.type !== "statement_block") return null;
    }
    if (up.type === "statement_block" && up.parent !== null && FUNCTIONS.has(up.parent.type)) {
      let returns = returning.get(up.id);
      if (returns === undefined) returning.set(up.id, returns = returnsValue(up));
      if (returns) return null;
      return { from: up.startPosition.row + 1, to: up.endPosition.row + 1 };
    }
  }
  return null;
}

// Whether a function body returns a value (its nested functions' returns are theirs).
function returnsValue(node: Node): boolean {
  for (const child of node.namedChildren) {
    if (child === null || FUNCTIONS.has(child.type) || CLASSES.has(child.type)) continue;
    if (child.type === "return_statement" && child.namedChildren.length > 0) return true;
    if (returnsValue(child)) return true;
  }
  return false;
}

// The props an attribute sets: those of the element named by an identifier (an intrinsic
// element's, `div`, lead nowhere in the files); a member's (`Foo.Bar`) are not evident.
function jsxProps(attribute: Node): Receiver {
  const element = attribute.parent;
  const named = element?.childForFieldName("name");
  if (named?.type !== "identifier") return { kind: "unknown" };
  // `const Item = ...` in each of several test blocks: the element's is the one in its scope.
  const binding = lookUp(named, named.text);
  const line = binding?.kind === "local" ? { line: binding.line } : {};
  return { kind: "props", component: named.text, ...line };
}

// The type of an object literal that is a property's value in another literal (`{ retry: { ... } }`),
// or an element of an array that is (`{ children: [{ ... }] }`); null for another object.
function valueContext(object: Node): LiteralContext | null {
  const anonymous = recordValueObject(object);
  if (anonymous !== null) return { type: null, typedAt: linesOf(anonymous) };
  const holder = object.parent;
  const outer = holder?.type === "pair" && holder.childForFieldName("value")?.id === object.id
    ? holder.parent
    : null;
  // `{ children: [{ text }] }`: an element of the array the outer literal's `children` holds.
  if (object.type !== "object" || outer?.type !== "object") return listedUnderKey(object);
  const key = holder?.childForFieldName("key");
  // `const deps: Record<string, Dependencies> = { redis: { ... } }`: each value is a V.
  const values = recordValues(outer);
  if (values !== null) return { type: values };
  if (key?.type !== "property_identifier") return null;
  // `{ retry: { limit: 2 } }`: of the type the outer literal's `retry` is annotated with.
  const context = objectContext(outer);
  const typed = context.type !== null || context.argument !== undefined ||
    context.nested !== undefined || anonymouslyTyped(context);
  return typed ? { type: null, nested: { key: key.text, outer: context } } : { type: null };
}

// What an object literal or object type is evidently: its type's name, else the call it is an
// argument of, or the parameter it annotates.
function objectContext(object: Node): LiteralContext {
  const valued = valueContext(object);
  if (valued !== null) return valued;
  let holder = object.parent;
  // `const routes: Route[] = [{ ... }]`: an element of a typed array (its place in each array,
  // the outermost first, says which of a tuple's).
  const places: number[] = [];
  let list = object;
  for (; holder?.type === "array" || constAsserted(holder); holder = holder.parent) {
    const at = list;
    if (holder.type === "array") {
      places.unshift(holder.namedChildren.findIndex((c) => c?.id === at.id));
    }
    list = holder;
  }
  const depth = places.length;
  // `type Options = { a: string } | { b: string }`: each arm is a part of the alias's type.
  holder = typeHolder(holder);
  const declared = declaredContext(object, { holder, places });
  if (declared !== null) return declared;
  const written = writtenType(holder, object, places);
  if (written !== undefined) return { type: written };
  // `return ok ? { ... } : { ... }`, `items.push(ok ? { ... } : { ... })`: either arm is what the
  // expression is.
  let arm = holder;
  while (arm?.type === "ternary_expression") arm = arm.parent;
  const returned = arm === null ? null : returnedType(arm);
  if (returned !== null) return { type: returned };
  const signed = arm === null ? null : signedType(arm);
  if (signed !== null) return { type: null, signed };
  const handled = arm === null ? null : handlerReturned(arm);
  if (handled !== null) return { type: null, handled };
  // `create<{ count: number }>()(() => ({ count: 0 }))`: the anonymous type argument's.
  const anonymous = arm === null ? null : anonymousReturned(arm);
  if (anonymous !== null) return { type: null, typedAt: anonymous };
  const given = arm === null || object.type !== "object" ? null : returnedToCall(arm);
  if (given !== null) return { type: null, argument: given };
  const pushed = arm?.type === "arguments" ? pushedType(arm, depth) : null;
  if (pushed !== null) return { type: pushed };
  const made = holder?.type === "arguments" && depth === 0 ? madeArgument(object, holder) : null;
  if (made !== null) return made;
  if (holder?.type === "arguments" && object.type === "object") {
    const setter = depth === 0 ? setterType(holder) : null;
    const typed = typeArgument(holder, depth) ?? (setter === null ? null : literalType(setter));
    if (depth > 0 && typed !== null) return { type: typed };
    // `formatTree([{ text }])`: an element of the array passed.
    const argument = argumentOf(list, holder);
    // `set({ count: 1 })` of `create<{ count: number }>()((set) => ...)`.
    const typedAt = setter?.type === "object_type" ? { typedAt: linesOf(setter) } : {};
    if (argument !== null) {
      return { type: null, argument: { ...argument, ...typed && { typed } }, ...typedAt };
    }
  }
  const annotated = object.type === "object_type" ? objectTypeContext(object, holder) : null;
  if (annotated !== null) return annotated;
  return object.type === "object" && arm !== null ? returnedAnonymous(arm) : { type: null };
}

// For an object returned (`arm` holds it) as a function's anonymous return type, or as its
// intersection with named parts (`return { cwd }` of `Promise<Pick<Options, "cwd"> & { ... }>`:
// a key may be a named part's): that type, and those parts; else of no evident type.
function returnedAnonymous(arm: Node): LiteralContext {
  const parameter = anonymousReturn(arm);
  if (parameter === null) return { type: null };
  const fn = returningFunction(arm);
  const parts = fn === null ? [] : returnedParts(fn);
  return { type: null, parameter, ...(parts.length > 0 ? { intersected: parts } : {}) };
}

// Whether `node` is a const assertion (`[...] as const`): the compiler gives its operand the type
// its own place expects, so an object under it is of the type the assertion's place gives.
function constAsserted(node: Node | null): node is Node {
  return node?.type === "as_expression" && node.namedChildren.length === 1 &&
    node.lastChild?.text === "const";
}

// For an object type written where it annotates (`holder`) a parameter, a return, a property (or
// its elements) or a variable: which one it is, by its line and place; null otherwise.
function objectTypeContext(object: Node, holder: Node | null): LiteralContext | null {
  holder = promisedAnnotation(holder) ?? holder;
  // `todos: { id: number }[]`: the type of a property's elements is written there too.
  const listed = holder?.type === "array_type" ? typeHolder(holder.parent) : null;
  const parameter = holder?.type === "type_annotation"
    ? annotatedParameter(holder) ?? annotatedReturn(holder) ?? annotatedProperty(holder)
    : listed?.type === "type_annotation"
    ? annotatedProperty(listed)
    : null;
  const variable = parameter ?? annotatedVariable(object);
  return variable === null ? null : { type: null, parameter: variable };
}

// For the type arguments of the platform's `Promise` written as a function's return type
// (`Promise<Pick<Options, "cwd"> & { manager: Manager }>`): that return type's annotation, an
// object type there being what awaiting the function's calls gives; null otherwise.
function promisedAnnotation(holder: Node | null): Node | null {
  const generic = holder?.type === "type_arguments" ? holder.parent : null;
  const name = generic?.type === "generic_type" ? generic.childForFieldName("name") : null;
  if (name?.text !== "Promise" || lookUp(name, name.text) !== null) return null;
  const annotation = generic?.parent ?? null;
  if (annotation?.type !== "type_annotation") return null;
  return annotation.parent?.childForFieldName("return_type")?.id === annotation.id
    ? annotation
    : null;
}

// For an object literal set to a variable annotated with the platform's `Record<K, V>` (or
// `Partial`, `Readonly` or `Required` of one) of a named V (`V | undefined` too): V, the type of
// each of its values; null otherwise.
function recordValues(object: Node): string | null {
  const holder = object.parent;
  if (
    holder?.type !== "variable_declarator" || holder.childForFieldName("value")?.id !== object.id
  ) {
    return null;
  }
  let typed = holder.childForFieldName("type")?.namedChildren[0] ?? null;
  for (let depth = 0; typed?.type === "generic_type" && depth < FOLLOW_CALLS; depth++) {
    const name = typed.childForFieldName("name");
    const list = typed.childForFieldName("type_arguments")?.namedChildren ?? [];
    if (name === null || lookUp(name, name.text) !== null) return null;
    if (name.text === "Record" && list.length === 2 && list[1]) return annotatedType(list[1]);
    if (!RECORD_WRAPPERS.has(name.text)) return null;
    typed = list[0] ?? null;
  }
  return null;
}

const RECORD_WRAPPERS = new Set(["Partial", "Readonly", "Required"]);

// For an object that is a value of a variable annotated `Record<K, V>` with V an anonymous object
// type, or a generic type written with one (`MaybeArray<{ specifier: string }>`): set in the
// variable's literal, in an array there (`"b": [{ ... }]`), or assigned to a key
// (`tests["c"] = { ... }`): that object type, whose members its keys are; null otherwise.
function recordValueObject(object: Node): Node | null {
  if (object.type !== "object") return null;
  let value: Node = object;
  if (value.parent?.type === "array") value = value.parent;
  const holder = value.parent;
  if (
    holder?.type === "assignment_expression" && holder.childForFieldName("right")?.id === value.id
  ) {
    const left = holder.childForFieldName("left");
    const record = left?.type === "subscript_expression" ? left.childForFieldName("object") : null;
    if (record?.type !== "identifier") return null;
    const declared = declaredAt(record, lookUp(record, record.text))?.parent ?? null;
    return declared?.type === "variable_declarator" ? anonymousRecordValue(declared) : null;
  }
  if (holder?.type !== "pair" || holder.childForFieldName("value")?.id !== value.id) return null;
  const outer = holder.parent;
  const declarator = outer?.type === "object" ? outer.parent : null;
  if (declarator?.type !== "variable_declarator") return null;
  return declarator.childForFieldName("value")?.id === outer?.id
    ? anonymousRecordValue(declarator)
    : null;
}

// The anonymous object type V of a variable annotated `Record<K, V>` (the platform's), or the one
// object type argument of a generic V (`Record<string, MaybeArray<{ ... }>>`); null otherwise.
function anonymousRecordValue(declarator: Node): Node | null {
  const typed = declarator.childForFieldName("type")?.namedChildren[0] ?? null;
  const name = typed?.type === "generic_type" ? typed.childForFieldName("name") : null;
  if (name?.text !== "Record" || lookUp(name, name.text) !== null) return null;
  const list = typed!.childForFieldName("type_arguments")?.namedChildren ?? [];
  const value = list.length === 2 ? list[1] : null;
  if (value?.type === "object_type") return value;
  const given = value?.type === "generic_type"
    ? value.childForFieldName("type_arguments")?.namedChildren ?? []
    : [];
  return given.length === 1 && given[0]?.type === "object_type" ? given[0] : null;
}

// For an object literal that is an element of an array literal under a key of another object
// literal of evident type (`{ children: [{ ... }] }`): the element of that key's type; else null.
function listedUnderKey(object: Node): LiteralContext | null {
  const list = object.type === "object" ? object.parent : null;
  const pair = list?.type === "array" ? list.parent : null;
  if (pair?.type !== "pair" || pair.childForFieldName("value")?.id !== list?.id) return null;
  const key = pair.childForFieldName("key");
  const outer = pair.parent;
  if (key?.type !== "property_identifier" || outer?.type !== "object") return null;
  const context = objectContext(outer);
  const typed = context.type !== null || context.argument !== undefined ||
    context.nested !== undefined || anonymouslyTyped(context);
  return typed ? { type: null, nested: { key: key.text, outer: context, element: true } } : null;
}

// Whether an object literal is of the anonymous object type annotating a variable
// (`const cases: Array<{ format: Options }> = [{ format: { ... } }]`): its keys' types are that
// type's members', which type the objects under them.
function anonymouslyTyped(context: LiteralContext): boolean {
  return context.type === null && context.parameter?.index === VARIABLE_TYPE;
}

// The type of an object literal a declaration holds: an alias's arm, a variable's initializer
// (an element of it, `depth` arrays down), a parameter's default value, a member of a typed value
// it is assigned to; null for another holder.
function declaredContext(
  object: Node,
  at: { holder: Node | null; places: number[] },
): LiteralContext | null {
  const { holder, places } = at;
  if (holder?.type === "assignment_expression" && places.length === 0) {
    return memberAssigned(holder, object);
  }
  if (holder?.type === "type_alias_declaration") {
    return { type: holder.childForFieldName("name")?.text ?? null };
  }
  if (holder?.type === "variable_declarator") {
    let typed = holder.childForFieldName("type");
    if (typed?.type === "type_annotation") typed = typed.namedChildren[0] ?? null;
    typed = typed === null ? null : elementOf(typed, places);
    // `const cases: { name: string }[] = [{ name: "a" }]`: of the variable's anonymous type.
    const variable = typed?.type === "object_type" ? annotatedVariable(typed) : null;
    if (variable !== null) return { type: null, parameter: variable };
    return { type: typed === null ? null : literalType(typed), ...intersectedParts(typed) };
  }
  if (
    (holder?.type === "required_parameter" || holder?.type === "optional_parameter") &&
    holder.childForFieldName("value")?.id === object.id
  ) {
    // `(opts: Options = { ... })`: a parameter's default value is of the parameter's type.
    const typed = holder.childForFieldName("type")?.namedChildren[0] ?? null;
    return { type: typed === null ? null : literalType(typed) };
  }
  return null;
}

// For an intersection type annotating a variable (`BuildContext & Context`): its named parts after
// the first (`literalType`'s), of which an object literal set to it is a value too.
function intersectedParts(typed: Node | null): Pick<LiteralContext, "intersected"> {
  while (typed?.type === "parenthesized_type") typed = typed.namedChildren[0] ?? null;
  if (typed?.type !== "intersection_type") return {};
  const parts = namedParts(typed).slice(1);
  return parts.length > 0 ? { intersected: parts } : {};
}

// For an object assigned to a member of a value of a named type (`options.extend = { ... }` of
// `options: LoadOptions`): of the type that member is annotated with, its anonymous one too; null
// for another assignment (a field of `this` is `assignedType`'s).
function memberAssigned(assignment: Node, object: Node): LiteralContext | null {
  if (assignment.childForFieldName("right")?.id !== object.id) return null;
  const left = assignment.childForFieldName("left");
  const key = left?.type === "member_expression" ? left.childForFieldName("property") : null;
  const self = left?.childForFieldName("object");
  if (key?.type !== "property_identifier" || !self || self.type === "this") return null;
  const on = receiverOf(self);
  return on.kind === "type"
    ? { type: null, nested: { key: key.text, outer: { type: on.type } } }
    : null;
}

// For an object cast (`as`, `satisfies`, itself or in parentheses) or assigned, `holder`: the named
// type written for it (null: none); undefined when `holder` is neither.
function writtenType(
  holder: Node | null,
  object: Node,
  places: number[],
): string | null | undefined {
  if (holder?.type === "as_expression" || holder?.type === "satisfies_expression") {
    return castType(holder, object, places);
  }
  // `<Options>{ ... }`: the older cast, its type written first.
  if (holder?.type === "type_assertion" && places.length === 0) {
    const typed = holder.namedChildren[0]?.namedChildren[0] ?? null;
    return typed === null || holder.namedChildren.at(-1)?.id !== object.id
      ? null
      : namedType(typed);
  }
  // `() => ({ ... }) as Ref`: the parentheses are what is cast.
  const cast = holder?.type === "parenthesized_expression" ? holder.parent : null;
  if (holder && (cast?.type === "as_expression" || cast?.type === "satisfies_expression")) {
    return castType(cast, holder);
  }
  if (holder?.type === "assignment_expression" && places.length === 0) {
    return assignedType(holder, object);
  }
  return undefined;
}

// The type of the element at `places` (one per array, the outermost first) of an array or tuple
// type (`[string[], ArgsDef][]` at [0, 1]: ArgsDef); null where `typed` is neither.
function elementOf(typed: Node, places: number[]): Node | null {
  let at: Node | null = typed;
  for (const place of places) {
    while (at?.type === "parenthesized_type" || at?.type === "readonly_type") {
      at = at.namedChildren[0] ?? null;
    }
    const generic = at?.type === "generic_type" ? at.childForFieldName("name")?.text : null;
    if (at?.type === "array_type") at = at.namedChildren[0] ?? null;
    else if (at?.type === "tuple_type") {
      at = at.namedChildren.filter((child) => child?.type !== "comment")[place] ?? null;
      if (at?.type === "optional_type") at = at.namedChildren[0] ?? null;
    } else if (generic === "Array" || generic === "ReadonlyArray") {
      at = at?.childForFieldName("type_arguments")?.namedChildren[0] ?? null;
    } else return null;
  }
  return at;
}

// The named type `holder`, an `as` or `satisfies` expression, writes for `object` (null: the
// object is the type written, or the type is not named).
function castType(holder: Node, object: Node, places: number[] = []): string | null {
  const typed = holder.namedChildren.at(-1) ?? null;
  if (typed === null || typed.id === object.id) return null;
  if (places.length === 0) return namedType(typed);
  // `[[[], { name: { ... } }]] as [string[], ArgsDef][]`: the element's type.
  const element = elementOf(typed, places);
  return element === null ? null : literalType(element);
}

// For an object assigned (`target = { ... }`) to a variable annotated with a named type, or to a
// field of the enclosing class annotated with one (`this.#options = { ... }`, `this[STATE]`): that
// type; null
// otherwise (what an unannotated target holds is not evident from the assignment).
function assignedType(assignment: Node, object: Node): string | null {
  if (assignment.childForFieldName("right")?.id !== object.id) return null;
  const left = assignment.childForFieldName("left");
  if (left?.type === "identifier") {
    const declarator = declaredAt(left, lookUp(left, left.text))?.parent;
    // `options = { prefix: "", ...options }` of a parameter `options?: TreeOptions` too.
    return declarator?.type === "variable_declarator" || PARAMETERS.has(declarator?.type ?? "")
      ? annotatedType(declarator!.childForFieldName("type"))
      : null;
  }
  // `this[STATE] = { ... }` sets the field the class declares as `[STATE]: State`.
  const computed = left?.type === "subscript_expression" ? left.childForFieldName("index") : null;
  const self = left?.type === "member_expression" || computed?.type === "identifier"
    ? left?.childForFieldName("object")
    : null;
  const field = computed ? `[${computed.text}]` : left?.childForFieldName("property")?.text;
  const owner = self?.type === "this" ? enclosingClass(self) : null;
  if (owner?.kind !== "this" || owner.type === null || field === undefined) return null;
  let declaration: Node | null = assignment.parent;
  while (declaration !== null && !CLASSES.has(declaration.type)) declaration = declaration.parent;
  const members = declaration?.childForFieldName("body")?.namedChildren ?? [];
  const member = members.find((member) =>
    member?.type === "public_field_definition" && member.childForFieldName("name")?.text === field
  );
  return member ? annotatedType(member.childForFieldName("type")) : null;
}

// The named type an annotation gives an object set to what it annotates (`Options | undefined`:
// Options), or null.
function annotatedType(annotation: Node | null): string | null {
  let typed = annotation?.type === "type_annotation" ? annotation.namedChildren[0] : annotation;
  if (typed?.type === "union_type") {
    const values = typed.namedChildren.filter((part) => !NOTHING.has(part?.text ?? ""));
    if (values.length === 1) typed = values[0];
  }
  return typed ? literalType(typed) : null;
}

// For an object returned (`arm` holds it) from a function whose return type is written as an
// anonymous object type (`function debug(): { close: () => void } { return { close } }`): that
// type, as `annotatedReturn` names it; null otherwise.
function anonymousReturn(arm: Node): { line: number; index: number } | null {
  const typed = returningFunction(arm)?.childForFieldName("return_type");
  if (typed?.type !== "type_annotation" || !anonymousPart(typed.namedChildren[0] ?? null)) {
    return null;
  }
  return annotatedReturn(typed);
}

// Whether a return type holds an anonymous object type that objects returned are of: itself, what
// the platform's `Promise` of it gives, a union's one value part (`{ contents: string } |
// undefined`) or an intersection's part (`Pick<Options, "cwd"> & { manager: Manager }`).
function anonymousPart(typed: Node | null): boolean {
  while (typed?.type === "parenthesized_type") typed = typed.namedChildren[0] ?? null;
  if (typed?.type === "object_type") return true;
  if (typed?.type === "generic_type") {
    const name = typed.childForFieldName("name");
    if (name?.text !== "Promise" || lookUp(name, name.text) !== null) return false;
    return anonymousPart(typed.childForFieldName("type_arguments")?.namedChildren[0] ?? null);
  }
  if (typed?.type === "intersection_type") {
    return typed.namedChildren.some((part) => anonymousPart(part));
  }
  if (typed?.type !== "union_type") return false;
  const values = unionParts(typed).filter((part) => !NOTHING.has(part.text));
  return values.length === 1 && anonymousPart(values[0]);
}

/** The parameter index that stands for a function's return type in `Receiver`'s `parameter`. */
export const RETURN_TYPE = -1;

/**
 * The parameter index that stands for a property's type in `Receiver`'s `parameter`, an anonymous
 * object type annotating a property (`extend?: false | { extendKey?: string }`), known by the line
 * of the property's name.
 */
export const PROPERTY_TYPE = -2;

/**
 * The parameter index that stands for a variable's type in `Receiver`'s `parameter`, an anonymous
 * object type annotating a variable or its array's elements (`const cases: { name: string }[]`),
 * known by the line of the variable's name.
 */
export const VARIABLE_TYPE = -3;

// For an anonymous object type annotating a variable, itself or as the element of its array type
// (`{ name: string }[]`, `Array<{ name: string }>`): the line of the variable's name and
// `VARIABLE_TYPE`; null elsewhere.
function annotatedVariable(objectType: Node): { line: number; index: number } | null {
  let up = objectType.parent;
  for (let depth = 0; depth < FOLLOW_CALLS; depth++) {
    const generic = up?.type === "type_arguments" ? up.parent : null;
    if (up?.type === "array_type") up = up.parent;
    else if (generic?.childForFieldName("name")?.text === "Array") up = generic.parent;
    else break;
  }
  const declarator = up?.type === "type_annotation" ? up.parent : null;
  const named = declarator?.type === "variable_declarator"
    ? declarator.childForFieldName("name")
    : null;
  if (named?.type !== "identifier" || declarator?.childForFieldName("type")?.id !== up?.id) {
    return null;
  }
  return { line: named.startPosition.row + 1, index: VARIABLE_TYPE };
}

// For a property's or field's annotation (`extend?: { extendKey?: string }`): the line of its name
// and `PROPERTY_TYPE`; null for another annotation.
function annotatedProperty(annotation: Node): { line: number; index: number } | null {
  const member = annotation.parent;
  if (member?.type !== "property_signature" && member?.type !== "public_field_definition") {
    return null;
  }
  const named = member.childForFieldName("name");
  if (member.childForFieldName("type")?.id !== annotation.id || named === null) return null;
  return { line: named.startPosition.row + 1, index: PROPERTY_TYPE };
}

// For a function's return type annotation (`function debug(): { close: () => void }`): the line
// of the function's name and `RETURN_TYPE`, its values being what calls of it give (no last line:
// they are used outside it); null for another annotation.
function annotatedReturn(annotation: Node): { line: number; index: number } | null {
  const fn = annotation.parent;
  if (fn === null || !FUNCTIONS.has(fn.type)) return null;
  if (fn.childForFieldName("return_type")?.id !== annotation.id) return null;
  let named = fn.childForFieldName("name") ?? null;
  if (named === null && fn.parent?.type === "variable_declarator") {
    named = fn.parent.childForFieldName("name");
  }
  return named === null ? null : { line: named.startPosition.row + 1, index: RETURN_TYPE };
}

// The named type of the first type argument of the call whose arguments are `list`
// (`atom<Item>(...)`), past `depth` array types (`atom<Item[]>([{ ... }])`: Item); or null.
function typeArgument(list: Node, depth: number): string | null {
  const call = list.parent;
  let typed = call?.type === "call_expression"
    ? call.childForFieldName("type_arguments")?.namedChildren[0] ?? null
    : null;
  for (let i = 0; i < depth && typed?.type === "array_type"; i++) {
    typed = typed.namedChildren[0] ?? null;
  }
  return typed === null || (depth > 0 && typed.type === "array_type") ? null : literalType(typed);
}

// `proxy<{ count: number }>({ count: 0 })`: a call written with an anonymous object type argument
// and given an object returns a value of that type (a generic returning its argument's); the
// call's receiver with that type's lines, else the receiver as it is.
function givenType(call: Node, result: Receiver): Receiver {
  if (result.kind !== "result" && (result.kind !== "unknown" || result.global === true)) {
    return result;
  }
  const typed = call.childForFieldName("type_arguments")?.namedChildren[0];
  const given = call.childForFieldName("arguments")?.namedChildren[0];
  if (typed?.type !== "object_type" || given?.type !== "object") return result;
  return { ...result, typedAt: linesOf(typed) };
}

// For an object passed first to a method of a variable made by a call written with a type
// argument (`$store.set({ a: 1 })` of `let $store = map<{ a: number }>()`,
// `useStore.setState({ count: 0 })` of `const useStore = create<State>()(...)`): the object is of
// that type argument, as the generic's methods take it (`set(value: Value)`,
// `setState(partial: Partial<T>)`); null otherwise (another argument, or no such variable).
function madeArgument(object: Node, list: Node): LiteralContext | null {
  const call = list.parent;
  const index = list.namedChildren.findIndex((child) => child?.id === object.id);
  if (object.type !== "object" || call === null || index > 1) return null;
  const callee = calleeOf(call);
  const method = callee?.childForFieldName("property")?.text;
  // `animations.set(key, { ... })` of `const animations = new Map<Key, Animation>()`: of the
  // map's value type.
  const mapped = index === 1 && method === "set";
  if (index === 1 && !mapped) return null;
  const typed = madeTypeArgument(call, mapped);
  if (typed === null || !callee || method === undefined) return null;
  const on = receiverOf(callee.childForFieldName("object"));
  const argument = { callee: method, index, on };
  if (typed.type === "object_type") return { type: null, argument, typedAt: linesOf(typed) };
  const named = literalType(typed);
  return named === null ? null : { type: null, argument: { ...argument, typed: named } };
}

// The platform's maps, whose `set(key, value)` takes a value of their second type argument.
const MAPS = new Set(["Map", "WeakMap"]);

// For an object returned (`arm` holds it) from a function of no return type passed to a call
// (`definePlugin(() => ({ ... }))`): that argument, what the callee's parameter type says such a
// function returns; null otherwise.
function returnedToCall(arm: Node): NonNullable<LiteralContext["argument"]> | null {
  const fn = returningFunction(arm);
  const list = fn?.parent;
  if (!fn || fn.childForFieldName("return_type") !== null || list?.type !== "arguments") {
    return null;
  }
  const argument = argumentOf(fn, list);
  return argument === null ? null : { ...argument, returned: true };
}

// The lines a node is written on.
function linesOf(node: Node): { from: number; to: number } {
  return { from: node.startPosition.row + 1, to: node.endPosition.row + 1 };
}

// For an object returned (`arm` holds it) from a function of no return type passed to a call
// written with an anonymous object type as its type argument
// (`create<{ count: number }>()(() => ({ count: 0 }))`): that type's lines; null otherwise.
function anonymousReturned(arm: Node): { from: number; to: number } | null {
  const fn = returningFunction(arm);
  if (fn === null || fn.childForFieldName("return_type") !== null) return null;
  const typed = calledWithTypeArgument(fn);
  return typed?.type === "object_type" ? linesOf(typed) : null;
}

// For a call of a method of a variable the file sets, without an annotation, from a call written
// with a type argument (`map<Value>()`, `create<State>()(...)`, awaited or not, or
// `new Store<State>()`): that call's first type argument; null for another call.
function madeTypeArgument(call: Node, mapped = false): Node | null {
  const callee = call.type === "call_expression" ? calleeOf(call) : null;
  const variable = callee?.type === "member_expression" ? callee.childForFieldName("object") : null;
  if (variable?.type !== "identifier") return null;
  const name = declaredAt(variable, lookUp(variable, variable.text));
  const declarator = name?.parent;
  if (
    !name || declarator?.type !== "variable_declarator" ||
    declarator.childForFieldName("name")?.id !== name.id ||
    declarator.childForFieldName("type") !== null
  ) {
    return null;
  }
  let value = declarator.childForFieldName("value");
  if (value?.type === "await_expression") value = value.namedChildren[0] ?? null;
  // `const store = new Store<State>()`: a generic class's methods take its type argument too
  // (`mapped`: the value type of the platform's `Map` or `WeakMap`, its second).
  if (value?.type === "new_expression") {
    const made = value.childForFieldName("constructor")?.text ?? "";
    if (mapped && !MAPS.has(made)) return null;
    return value.childForFieldName("type_arguments")?.namedChildren[mapped ? 1 : 0] ?? null;
  }
  if (value?.type !== "call_expression" || mapped) return null;
  const inner = calleeOf(value);
  const typed = value.childForFieldName("type_arguments") ??
    (inner?.type === "call_expression" ? inner.childForFieldName("type_arguments") : null);
  return typed?.namedChildren[0] ?? null;
}

// For the arguments `list` of a call of a parameter of a function passed to (or annotated with)
// a generic written with a type argument (`create<State>()((set) => ({ inc: () => set({ n }) }))`):
// that type argument, which the function's objects are of, what its setter is given too; null
// otherwise.
function setterType(list: Node): Node | null {
  const callee = list.parent?.type === "call_expression" ? calleeOf(list.parent) : null;
  if (callee?.type !== "identifier") return null;
  for (let up = list.parent; up !== null; up = up.parent) {
    if (!FUNCTIONS.has(up.type)) continue;
    const single = up.childForFieldName("parameter");
    const parameters = single === null
      ? up.childForFieldName("parameters")?.namedChildren ?? []
      : [single];
    const names = parameters.map((parameter) =>
      parameter?.type === "identifier" ? parameter : parameter?.childForFieldName("pattern")
    );
    if (names.some((name) => name?.type === "identifier" && name.text === callee.text)) {
      return calledWithTypeArgument(up);
    }
  }
  return null;
}

// For an object passed in `list`, a call's arguments (`f({ ... })`, `new Stream({ ... })`,
// `JWT.verify(token, { ... })` with `import * as JWT`): the callee and the argument's index.
function argumentOf(
  object: Node,
  list: Node,
): { callee: string; index: number; module?: string; on?: Receiver } | null {
  const call = list.parent;
  const callee = call?.type === "call_expression"
    ? calleeOf(call)
    : call?.type === "new_expression"
    ? call.childForFieldName("constructor")
    : null;
  const index = list.namedChildren.findIndex((child) => child?.id === object.id);
  if (callee?.type === "identifier") return { callee: callee.text, index };
  const namespace = callee?.type === "member_expression"
    ? callee.childForFieldName("object")
    : null;
  const named = callee?.childForFieldName("property");
  if (!namespace || !named) return null;
  const on = receiverOf(namespace);
  if (on.kind === "module") return { callee: named.text, index, module: on.module };
  // `client.get(url, { ... })`: a method of a value of evident type.
  const evident = on.kind !== "unknown" && on.kind !== "props";
  return evident ? { callee: named.text, index, on } : null;
}

const TYPE_COMBINATIONS = new Set(["union_type", "intersection_type", "parenthesized_type"]);

// The named type an object literal annotated with `typed` is of: the name, or the first named
// part of an intersection (`(Route & { name: string })[]`: each element is a Route).
function literalType(typed: Node): string | null {
  let node: Node | null = typed;
  while (node?.type === "parenthesized_type") node = node.namedChildren[0] ?? null;
  if (node?.type !== "intersection_type") return node === null ? null : namedType(node);
  for (const part of node.namedChildren) {
    const name = part === null ? null : namedType(part);
    if (name !== null) return name;
  }
  return null;
}

// The named return type of the function a `return` statement (or an arrow function's body, or
// its parenthesized body) returns from, or null.
function returnedType(holder: Node): string | null {
  const fn = returningFunction(holder);
  return fn === null ? null : returnTypeOf(fn) ?? calledWithType(fn);
}

// The function returning what `holder` holds: an arrow function whose body it is (`(): Result =>
// ok ? { ... } : { ... }`) or whose parenthesized body, or the function a `return` is in; or null.
function returningFunction(holder: Node): Node | null {
  if (holder.type === "arrow_function") return holder;
  if (holder.type === "parenthesized_expression") {
    return holder.parent?.type === "arrow_function" ? holder.parent : null;
  }
  if (holder.type !== "return_statement") return null;
  let fn = holder.parent;
  while (fn !== null && !FUNCTIONS.has(fn.type)) fn = fn.parent;
  return fn;
}

// For what a function set to a variable annotated with a named type written without type
// arguments returns (`const github: Provider = (input) => ({ ... })`): that type's name, whose
// call signature says what such a function returns; null otherwise.
function signedType(holder: Node): string | null {
  const fn = returningFunction(holder);
  const up = fn?.parent;
  if (up?.type !== "variable_declarator" || up.childForFieldName("value")?.id !== fn?.id) {
    return null;
  }
  const typed = up.childForFieldName("type")?.namedChildren[0];
  return typed?.type === "type_identifier" ? typed.text : null;
}

// For what a function that is a typed literal's property's value (or its method) returns (`{
// custom: (input) => ({ ... }) }`): that key and the literal's context; null otherwise.
function handlerReturned(holder: Node): { key: string; outer: LiteralContext } | null {
  const fn = returningFunction(holder);
  const pair = fn?.type === "method_definition" ? fn : fn?.parent;
  if (pair?.type === "pair" && pair.childForFieldName("value")?.id !== fn?.id) return null;
  const key = pair?.type === "pair" || pair?.type === "method_definition"
    ? pair.childForFieldName(pair.type === "pair" ? "key" : "name")
    : null;
  const object = pair?.parent;
  if (key?.type !== "property_identifier" || object?.type !== "object") return null;
  const outer = objectContext(object);
  const typed = outer.type !== null || outer.argument !== undefined || outer.nested !== undefined;
  return typed ? { key: key.text, outer } : null;
}

// For a function passed to a call written with a type argument (`create<State>((set) => ...)`,
// `create<State>()(...)`) or set to a variable annotated with a generic type written with one
// (`const slice: StateCreator<State> = (set) => ...`), directly or inside calls it is passed through
// (`create<State>()(devtools((set) => ...))`) or functions it returns
// (`(set) => ({ inc: () => set(() => ({ ... })) })`: what the state's setter is given): that
// argument's named type, which such calls give what the function returns; null otherwise.
function calledWithType(fn: Node): string | null {
  const typed = calledWithTypeArgument(fn);
  return typed === null ? null : literalType(typed);
}

// The type argument `calledWithType` names (an anonymous object type too), or null.
function calledWithTypeArgument(fn: Node): Node | null {
  let node = fn;
  for (let hops = 0; hops < FOLLOW_CALLS; hops++) {
    const up = node.parent;
    if (up === null) return null;
    if (up.type === "arguments" && up.parent?.type === "call_expression") {
      const call = up.parent;
      const callee = calleeOf(call);
      const typed = call.childForFieldName("type_arguments") ??
        (callee?.type === "call_expression" ? callee.childForFieldName("type_arguments") : null);
      const first = typed?.namedChildren[0];
      if (first) return first;
      // `useStore.setState((state) => ({ ... }))`: what the store's first type argument is.
      const made = up.namedChildren[0]?.id === node.id ? madeTypeArgument(call) : null;
      if (made !== null) return made;
      node = call;
    } else if (up.type === "variable_declarator" && up.childForFieldName("value")?.id === node.id) {
      // `const slice: StateCreator<State> = (set) => ({ ... })`: a function annotated with a
      // generic type written with a type argument returns objects of it, as such calls do.
      const typed = up.childForFieldName("type")?.namedChildren[0];
      const first = typed?.type === "generic_type"
        ? typed.childForFieldName("type_arguments")?.namedChildren[0]
        : null;
      return first ?? null;
    } else if (
      (up.type === "arrow_function" && up.childForFieldName("body")?.id === node.id) ||
      (up.type === "pair" && up.childForFieldName("value")?.id === node.id) ||
      up.type === "parenthesized_expression" || up.type === "object"
    ) {
      node = up;
    } else return null;
  }
  return null;
}

// Most steps out from a function to the call written with a type argument.
const FOLLOW_CALLS = 12;

// The types of no value: an object returned is of a union's other part.
const NOTHING = new Set(["undefined", "null", "void"]);

// The named type a function's return type annotation writes (`Promise<Result>`: Result), or null.
function returnTypeOf(fn: Node): string | null {
  let typed = fn.childForFieldName("return_type");
  if (typed?.type === "type_annotation") typed = typed.namedChildren[0] ?? null;
  if (typed?.type === "generic_type" && typed.childForFieldName("name")?.text === "Promise") {
    // `async function f(): Promise<Result>`: the object is a Result.
    typed = typed.childForFieldName("type_arguments")?.namedChildren[0] ?? null;
  }
  if (typed?.type === "union_type") return unionReturned(typed);
  if (typed?.type === "conditional_type") return conditionalReturned(typed);
  return typed === null ? null : namedType(typed);
}

// The named type an object returned as a conditional type is of (`N extends true ? Array<Options>
// : Options`): the one type its arms name, each arm itself or an array of it (the compiler takes
// an object for the arm it fits, an array's elements for the array arm's), or null.
function conditionalReturned(conditional: Node): string | null {
  const names = new Set<string | null>();
  const visit = (arm: Node | null) => {
    while (arm?.type === "parenthesized_type") arm = arm.namedChildren[0] ?? null;
    if (arm === null || NOTHING.has(arm.text)) return;
    if (arm.type === "conditional_type") {
      visit(arm.childForFieldName("consequence"));
      visit(arm.childForFieldName("alternative"));
    } else names.add(arrayElement(arm) ?? literalType(arm));
  };
  visit(conditional);
  const [only] = names;
  return names.size === 1 && only !== undefined ? only : null;
}

// The named type an object returned as a union is of: its one part that is a value
// (`Result | undefined`), or the one type every such part names, itself or as what a promise
// gives (`Result | Promise<Result> | null`: a function of either kind returns a Result).
function unionReturned(union: Node): string | null {
  const values = unionParts(union).filter((part) => !NOTHING.has(part.text));
  const names = new Set(values.map((part: Node | null) => {
    if (part?.type === "generic_type" && part.childForFieldName("name")?.text === "Promise") {
      part = part.childForFieldName("type_arguments")?.namedChildren[0] ?? null;
    }
    // `(Manager & { warnings?: string[] }) | undefined`: the intersection's named part.
    return part === null ? null : literalType(part);
  }));
  const [only] = names;
  return names.size === 1 && only !== undefined ? only : null;
}

// The parts of a union, its nested unions' parts too (`A | B | null` parses as `(A | B) | null`).
function unionParts(union: Node): Node[] {
  // Without recursion: the parser nests a long union one arm a level (`A | B | C` is `(A | B) | C`).
  const parts: Node[] = [];
  const pending: Node[] = [union];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.type !== "union_type") {
      parts.push(node);
      continue;
    }
    const children = node.namedChildren;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child !== null) pending.push(child);
    }
  }
  return parts;
}

// The named element type of the array a function's return type annotation writes (`Plugin[]`,
// `Promise<readonly Plugin[]>`, `Array<Plugin>`), or null.
function returnedElement(fn: Node): string | null {
  let typed = fn.childForFieldName("return_type");
  if (typed?.type === "type_annotation") typed = typed.namedChildren[0] ?? null;
  if (typed?.type === "generic_type" && typed.childForFieldName("name")?.text === "Promise") {
    typed = typed.childForFieldName("type_arguments")?.namedChildren[0] ?? null;
  }
  return typed === null ? null : arrayElement(typed);
}

// The named parts of the intersection a function's return type annotation writes (itself or as
// the platform's `Promise` of it: `Promise<Pick<Options, "cwd"> & { manager: Manager }>`), or none.
function returnedParts(fn: Node): string[] {
  let typed = fn.childForFieldName("return_type");
  if (typed?.type === "type_annotation") typed = typed.namedChildren[0] ?? null;
  const name = typed?.type === "generic_type" ? typed.childForFieldName("name") : null;
  if (name?.text === "Promise" && lookUp(name, name.text) === null) {
    typed = typed?.childForFieldName("type_arguments")?.namedChildren[0] ?? null;
  }
  while (typed?.type === "parenthesized_type") typed = typed.namedChildren[0] ?? null;
  return typed?.type === "intersection_type" ? namedParts(typed) : [];
}

// The named element type of an array type (`Route[]`, `readonly Route[]`, `Array<Route>`), or null.
function arrayElement(array: Node): string | null {
  let typed: Node | null = array;
  if (typed?.type === "readonly_type") typed = typed.namedChildren[0] ?? null;
  if (typed?.type === "array_type") return literalType(typed.namedChildren[0] ?? typed);
  const generic = typed?.type === "generic_type" ? typed.childForFieldName("name")?.text : null;
  if (generic !== "Array" && generic !== "ReadonlyArray") return null;
  const argument = typed?.childForFieldName("type_arguments")?.namedChildren[0] ?? null;
  return argument === null ? null : literalType(argument);
}

// For a parameter's type annotation: the line of its function's name, the parameter's index and
// the function's last line.
function annotatedParameter(
  annotation: Node,
): { line: number; index: number; to: number; anonymous?: true } | null {
  const parameter = annotation.parent;
  const list = parameter?.parent;
  if (
    !parameter || list?.type !== "formal_parameters" ||
    (parameter.type !== "required_parameter" && parameter.type !== "optional_parameter")
  ) {
    return null;
  }
  const index = valueParameters(list).findIndex((child) => child.id === parameter.id);
  if (index === -1) return null; // `this: { ... }`: the value called on, no parameter
  const fn = list.parent;
  let named = fn?.childForFieldName("name") ?? null;
  if (named === null && fn?.parent?.type === "variable_declarator") {
    named = fn.parent.childForFieldName("name");
  }
  if (fn === null) return null;
  // `onWatch?: (event: { type: string }) => void`: the property's parameter, known by its name.
  if (fn.type === "function_type") named = typedMember(fn) ?? aliasedFunction(fn);
  if (fn.type === "function_type" && named === null) return null;
  if (named === null) return anonymousParameter(fn, index);
  return { line: named.startPosition.row + 1, index, to: fn.endPosition.row + 1 };
}

// The name of the type alias a function type is the value of (`type Provider = (options: { auth?:
// string }) => Info`), or null.
function aliasedFunction(fn: Node): Node | null {
  let value: Node | null = fn;
  while (value?.parent?.type === "parenthesized_type") value = value.parent;
  const alias = value?.parent;
  if (alias?.type !== "type_alias_declaration") return null;
  return alias.childForFieldName("value")?.id === value?.id
    ? alias.childForFieldName("name")
    : null;
}

// The name of the property or field a function type annotates (`onWatch?: (event) => void`), or
// null.
function typedMember(fn: Node): Node | null {
  const annotation = fn.parent;
  const member = annotation?.type === "type_annotation" ? annotation.parent : null;
  if (member?.type !== "property_signature" && member?.type !== "public_field_definition") {
    return null;
  }
  return functionTyped(member)?.id === fn.id ? member.childForFieldName("name") : null;
}

// For a parameter of a function without a name (`createSelector((state: { a: string }) =>
// state.a, ...)`): its anonymous type is that function's alone, known by the line the function
// starts on; another function's type written alike is another type.
function anonymousParameter(
  fn: Node,
  index: number,
): { line: number; index: number; to: number; anonymous: true } | null {
  if (fn.type !== "arrow_function" && fn.type !== "function_expression") return null;
  return { line: fn.startPosition.row + 1, index, to: fn.endPosition.row + 1, anonymous: true };
}

// For the name of a function (declared, or a variable holding an arrow function or function
// expression) or of a class (`new C({ ... })` passes its constructor's parameters): the named
// type of each parameter; null for other names.
function parameterTypes(name: Node): (string | string[] | null)[] | null {
  const holder = name.parent;
  const fn = holder !== null && CLASSES.has(holder.type)
    ? constructorOf(holder)
    : functionNamed(name);
  return fn === null ? null : parametersOf(fn);
}

// A method's (or function's) parameter types and callbacks, as a declaration's fields.
function functionTypes(fn: Node): Pick<Declared, "parameters" | "callbacks"> {
  const parameters = parametersOf(fn);
  const callbacks = callbacksOf(fn);
  return {
    ...(parameters === null ? {} : { parameters }),
    ...(callbacks === null ? {} : { callbacks }),
  };
}

// For the name of a function: per parameter typed by a function type written inline, the named
// types of that type's parameters (null for another parameter); null when it has none.
function callbackTypes(name: Node): ((string | null)[] | null)[] | null {
  const fn = functionNamed(name);
  return fn === null ? null : callbacksOf(fn);
}

function callbacksOf(fn: Node): ((string | null)[] | null)[] | null {
  const list = fn.childForFieldName("parameters");
  if (!list) return null;
  const callbacks = valueParameters(list)
    .map((parameter) => {
      let typed = parameter?.childForFieldName("type") ?? null;
      if (typed?.type === "type_annotation") typed = typed.namedChildren[0] ?? null;
      while (typed?.type === "parenthesized_type") typed = typed.namedChildren[0] ?? null;
      return typed?.type === "function_type" ? signatureTypes(typed) : null;
    });
  return callbacks.some((callback) => callback !== null) ? callbacks : null;
}

// For the name of a type alias of a function type, or of an interface with a call signature: the
// named type of each parameter of that function; null for other names.
function signatureOf(name: Node): (string | null)[] | null {
  const holder = name.parent;
  if (holder?.childForFieldName("name")?.id !== name.id) return null;
  const call = callSignature(name);
  return call === null ? null : signatureTypes(call);
}

// For the name of a type alias of a function type, or of an object type or interface with a call
// signature: that function type or call signature; null for other names.
function callSignature(name: Node): Node | null {
  const holder = name.parent;
  if (holder?.childForFieldName("name")?.id !== name.id) return null;
  let body: Node | null = null;
  if (holder.type === "type_alias_declaration") {
    let value = holder.childForFieldName("value");
    while (value?.type === "parenthesized_type") value = value.namedChildren[0] ?? null;
    if (value?.type === "function_type") return value;
    if (value?.type === "object_type") body = value;
  } else if (holder.type === "interface_declaration") {
    body = holder.childForFieldName("body");
  }
  return body?.namedChildren.find((member) => member?.type === "call_signature") ?? null;
}

// For the name of an interface or an object type alias with a construct signature: the named type
// it returns (`new (config?: object): PrinterType`); null for other names.
function constructedType(name: Node): string | null {
  const holder = name.parent;
  if (holder?.childForFieldName("name")?.id !== name.id) return null;
  const body = holder.type === "interface_declaration"
    ? holder.childForFieldName("body")
    : holder.type === "type_alias_declaration"
    ? holder.childForFieldName("value")
    : null;
  if (body?.type !== "object_type" && body?.type !== "interface_body") return null;
  const signature = body.namedChildren.find((member) => member?.type === "construct_signature");
  const typed = signature?.childForFieldName("type") ?? null;
  return typed === null ? null : namedType(typed);
}

// For the name of a type with a call signature: the named type calling a value of it returns.
function signatureReturns(name: Node): string | null {
  const call = callSignature(name);
  return call === null ? null : returnTypeOf(call);
}

// The named type of each parameter of a function type or call signature (null: none).
function signatureTypes(fn: Node): (string | null)[] {
  return (parametersOf(fn) ?? []).map((type) => typeof type === "string" ? type : null);
}

// The named type of each parameter of a function (a union of named types: each of them).
function parametersOf(fn: Node): (string | string[] | null)[] | null {
  const list = fn.childForFieldName("parameters");
  if (!list) return null;
  return valueParameters(list).map(
    (parameter) => {
      let typed = parameter?.childForFieldName("type") ?? null;
      if (typed?.type === "type_annotation") typed = typed.namedChildren[0] ?? null;
      // `items: TreeItem[]`: an object passed there is an element of the array literal passed.
      if (typed?.type === "array_type") typed = typed.namedChildren[0] ?? null;
      // `options: Partial<Options & { fancy: boolean }>`: an object passed is of its named parts
      // (or of the anonymous one, `parameterMember`).
      const wrapped = typed === null ? null : wrappedType(typed);
      if (wrapped?.type === "intersection_type") {
        const parts = namedParts(wrapped);
        return parts.length > 0 ? parts : null;
      }
      if (typed?.type === "union_type") {
        // `algOrOptions: Algorithm | VerifyOptions`: an object passed is of one of them.
        const arms = namedParts(typed);
        return arms.length > 0 ? arms : null;
      }
      return typed === null ? null : namedType(typed);
    },
  );
}

// For the name of a function (or class): its parameters' types, inline callbacks' and
// constraints', as a declaration's fields.
function parameterFields(name: Node): Pick<Declared, "parameters" | "callbacks" | "constraints"> {
  const parameters = parameterTypes(name);
  const callbacks = callbackTypes(name);
  const constraints = constraintTypes(name);
  return {
    ...(parameters === null ? {} : { parameters }),
    ...(callbacks === null ? {} : { callbacks }),
    ...(constraints === null ? {} : { constraints }),
  };
}

// For the name of a function: per parameter typed by one of its type parameters written with a
// constraint (`hooks: T` of `<T extends Partial<Hooks>>`), that constraint's named type (null for
// another parameter); null when it has none. The constraint types the methods of an object passed
// there (their parameters), though the object's keys are its own: T is inferred from it.
function constraintTypes(name: Node): (string | null)[] | null {
  const fn = functionNamed(name);
  const list = fn?.childForFieldName("parameters");
  const generics = fn?.childForFieldName("type_parameters")?.namedChildren ?? [];
  if (!list || generics.length === 0) return null;
  const constraints = valueParameters(list).map(
    (parameter) => {
      let typed = parameter?.childForFieldName("type") ?? null;
      if (typed?.type === "type_annotation") typed = typed.namedChildren[0] ?? null;
      if (typed?.type !== "type_identifier") return null;
      const declared = generics.find((each) =>
        each?.type === "type_parameter" && each.childForFieldName("name")?.text === typed.text
      );
      const constraint = declared?.childForFieldName("constraint")?.namedChildren[0] ?? null;
      return constraint === null ? null : namedType(constraint);
    },
  );
  return constraints.some((each) => each !== null) ? constraints : null;
}

// For a property signature or field annotated with a function type (`get: (url: string) => Reply`):
// that function type; null otherwise.
function functionTyped(member: Node): Node | null {
  let typed = member.childForFieldName("type");
  if (typed?.type === "type_annotation") typed = typed.namedChildren[0] ?? null;
  while (typed?.type === "parenthesized_type") typed = typed.namedChildren[0] ?? null;
  return typed?.type === "function_type" ? typed : null;
}

// For the name of a variable: the named type its annotation writes, or the function whose call
// (or `await` of one) sets it; empty for other names.
function valueTypes(name: Node): Pick<Declared, "valueType" | "valueArguments" | "setBy"> {
  const holder = name.parent;
  if (holder?.type !== "variable_declarator" || holder.childForFieldName("name")?.id !== name.id) {
    return {};
  }
  const typed = holder.childForFieldName("type");
  const type = typed === null ? null : namedType(typed);
  const generic = typed?.namedChildren[0];
  const list = generic?.type === "generic_type"
    ? generic.childForFieldName("type_arguments")?.namedChildren ?? []
    : [];
  // `DriverFactory<FSOptions>`: what the generic's type parameters stand for here.
  const valueArguments = list.map((argument) => argument === null ? null : namedType(argument));
  if (type !== null) {
    return { valueType: type, ...(valueArguments.length > 0 ? { valueArguments } : {}) };
  }
  let value = holder.childForFieldName("value");
  // `const persist = persistImpl as unknown as Persist`: of the type cast to, last.
  const cast = value?.type === "as_expression" ? value.namedChildren.at(-1) : null;
  const castTo = cast ? namedType(cast) : null;
  if (castTo !== null) return { valueType: castTo };
  if (value?.type === "await_expression") value = value.namedChildren[0] ?? null;
  const callee = value?.type === "call_expression" ? calleeOf(value) : null;
  return callee?.type === "identifier" ? { setBy: callee.text } : {};
}

// The function `name` declares (a function, or a variable holding an arrow function or function
// expression), or null.
function functionNamed(name: Node): Node | null {
  const holder = name.parent;
  if (holder?.type === "function_declaration" || holder?.type === "function_signature") {
    return holder;
  }
  if (holder?.type === "variable_declarator" && holder.childForFieldName("name")?.id === name.id) {
    const value = holder.childForFieldName("value");
    if (value !== null && FUNCTIONS.has(value.type)) return value;
  }
  return null;
}

// A class's own constructor (its body's method named `constructor`), or null: a class without
// one passes its arguments to what it extends, not evident here.
function constructorOf(declaration: Node): Node | null {
  const body = declaration.childForFieldName("body");
  for (const member of body?.namedChildren ?? []) {
    if (
      member?.type === "method_definition" &&
      member.childForFieldName("name")?.text === "constructor"
    ) {
      return member;
    }
  }
  return null;
}

// The named types a union or intersection is made of (`A | (B & { c: C })`: A and B); for an
// object type mapping the keys of a named type (`{ [K in keyof Options]-?: true }`), that type,
// whose members it has.
function namedParts(typed: Node): string[] {
  if (typed.type === "object_type") return mappedKeys(typed);
  if (!TYPE_COMBINATIONS.has(typed.type)) {
    const name = namedType(typed);
    return name === null ? [] : [name];
  }
  return typed.namedChildren.flatMap((part) => part === null ? [] : namedParts(part));
}

// The named types whose keys an object type maps (`{ [K in keyof Options]-?: true }`).
function mappedKeys(object: Node): string[] {
  const names: string[] = [];
  for (const signature of object.namedChildren) {
    const clause = signature?.type === "index_signature"
      ? signature.namedChildren.find((child) => child?.type === "mapped_type_clause")
      : null;
    const keys = clause?.childForFieldName("type");
    const of = keys?.type === "index_type_query" ? keys.namedChildren[0] : null;
    const name = of ? namedType(of) : null;
    if (name !== null) names.push(name);
  }
  return names;
}

// For the name of a function (or a class, its constructor) or of a type alias: the type arguments
// written in its parameters' annotations or its value, as `Declared.typeArguments`; null when none.
function declaredArguments(name: Node): TypeArguments | null {
  const holder = name.parent;
  if (holder?.type === "type_alias_declaration") {
    if (holder.childForFieldName("name")?.id !== name.id) return null;
    return typeArguments([holder.childForFieldName("value")]);
  }
  const fn = holder !== null && CLASSES.has(holder.type)
    ? constructorOf(holder)
    : functionNamed(name);
  return fn === null ? null : typeArguments(parameterAnnotations(fn));
}

// The type annotations of a function's parameters.
function parameterAnnotations(fn: Node): (Node | null)[] {
  const list = fn.childForFieldName("parameters");
  return list ? valueParameters(list).map((parameter) => parameter.childForFieldName("type")) : [];
}

// The parameters of a parameter list that arguments are given to: not its comments, nor a
// `this` parameter (`(this: Context, options: Options) => void` takes its first argument as
// `options`; `this` is what it is called on).
function valueParameters(list: Node): Node[] {
  return list.namedChildren.filter((child): child is Node =>
    child !== null && child.type !== "comment" &&
    child.childForFieldName("pattern")?.type !== "this"
  );
}

// Per generic type written with type arguments in `types` (at any depth; the first of a name
// kept), the named type of each argument; null when none is written.
function typeArguments(types: (Node | null)[]): TypeArguments | null {
  const found: TypeArguments = {};
  for (const typed of types) {
    for (const generic of typed?.descendantsOfType("generic_type") ?? []) {
      const name = generic?.childForFieldName("name");
      if (generic === null || name?.type !== "type_identifier" || name.text in found) continue;
      const list = generic.childForFieldName("type_arguments")?.namedChildren ?? [];
      found[name.text] = list.map((argument) => argument === null ? null : argumentType(argument));
    }
  }
  return Object.keys(found).length > 0 ? found : null;
}

// The named type a type argument writes; null for a type parameter in scope (`Resolvable<T>` of
// `<const T extends ArgsDef>`: the compiler infers T from the value given, whose members are its
// own, not the constraint's).
function argumentType(argument: Node): string | null {
  const named = namedType(argument);
  const node = argument.type === "generic_type" ? argument.childForFieldName("name") : argument;
  if (named === null || node?.type !== "type_identifier" || named !== node.text) return named;
  return typeParameterOf(node, named) ? null : named;
}

// Whether `name` is a type parameter of a declaration enclosing `node` (read from the syntax, not
// looked up: a lookup would compute the enclosing declaration's own fields, these among them).
function typeParameterOf(node: Node, name: string): boolean {
  for (let up = node.parent; up !== null; up = up.parent) {
    const list = up.childForFieldName("type_parameters")?.namedChildren ?? [];
    if (list.some((parameter) => parameter?.childForFieldName("name")?.text === name)) return true;
  }
  return false;
}

// For the name of a type alias or interface: its type parameters, and the type arguments of the
// generic types its value is made of (`type Internal = Required<Options, "fetch"> & { ... }`,
// where `type Required<T, K> = T & { ... }` has the members of its argument T).
function genericParts(name: Node): Pick<Declared, "partArguments" | "typeParameters"> {
  const holder = name.parent;
  if (holder === null || !TYPE_HOLDERS.has(holder.type)) return {};
  if (holder.childForFieldName("name")?.id !== name.id) return {};
  const parameters = holder.childForFieldName("type_parameters")?.namedChildren
    .map((parameter) => parameter?.childForFieldName("name")?.text ?? "") ?? [];
  const found: Record<string, (string | null)[]> = {};
  const visit = (typed: Node) => {
    if (TYPE_COMBINATIONS.has(typed.type)) {
      for (const part of typed.namedChildren) if (part !== null) visit(part);
      return;
    }
    const generic = typed.type === "generic_type" ? typed.childForFieldName("name") : null;
    if (!generic || namedType(typed) !== generic.text) return;
    const list = typed.childForFieldName("type_arguments")?.namedChildren ?? [];
    found[generic.text] = list.map((argument) => argument === null ? null : namedType(argument));
  };
  const value = holder.childForFieldName("value");
  if (value !== null) visit(value);
  return {
    ...(Object.keys(found).length > 0 ? { partArguments: found } : {}),
    ...(parameters.length > 0 ? { typeParameters: parameters } : {}),
  };
}

// For the name of a type alias of a union: the named types its arms that are function types
// return (`(() => T) | (() => Promise<T>)`: T); empty for other names.
function armReturns(name: Node): string[] {
  const holder = name.parent;
  if (holder?.type !== "type_alias_declaration") return [];
  if (holder.childForFieldName("name")?.id !== name.id) return [];
  const value = holder.childForFieldName("value");
  if (value?.type !== "union_type") return [];
  const found = new Set<string>();
  const visit = (typed: Node) => {
    if (typed.type === "union_type" || typed.type === "parenthesized_type") {
      for (const part of typed.namedChildren) if (part !== null) visit(part);
    } else if (typed.type === "function_type") {
      const returned = returnTypeOf(typed);
      if (returned !== null) found.add(returned);
    }
  };
  visit(value);
  return [...found];
}

// For the name of a type alias or interface: the named types its value is made of (a union's
// or intersection's named parts) or it extends; empty for other names.
function typeParts(name: Node): string[] {
  const holder = name.parent;
  if (holder?.childForFieldName("name")?.id !== name.id) return [];
  if (holder.type === "interface_declaration") return heritageOf(holder);
  if (holder.type !== "type_alias_declaration") return [];
  const value = holder.childForFieldName("value");
  return value === null ? [] : namedParts(value);
}

// For the name of an interface or an alias of an object type: the named types of its index
// signature's values (`[key: string]: Value | Input`; not a mapped type's `[K in keyof T]`).
function signatureValues(name: Node): string[] {
  const holder = name.parent;
  if (holder?.childForFieldName("name")?.id !== name.id) return [];
  const body = holder.type === "interface_declaration"
    ? holder.childForFieldName("body")
    : holder.type === "type_alias_declaration"
    ? holder.childForFieldName("value")
    : null;
  if (body?.type !== "interface_body" && body?.type !== "object_type") return [];
  for (const signature of body.namedChildren) {
    if (signature?.type !== "index_signature") continue;
    if (signature.namedChildren.some((child) => child?.type === "mapped_type_clause")) continue;
    const annotation = signature.namedChildren.find((child) => child?.type === "type_annotation");
    const value = annotation?.namedChildren[0];
    return value ? namedParts(value) : [];
  }
  return [];
}

// The value a destructuring pattern reads from: `const { a } = value` or a typed parameter.
function destructured(node: Node): Receiver {
  let pattern: Node | null = node.parent;
  while (pattern !== null && pattern.type !== "object_pattern") pattern = pattern.parent;
  const holder = pattern?.parent;
  if (!holder) return { kind: "unknown" };
  if (holder.type === "variable_declarator") {
    const typed = holder.childForFieldName("type");
    const type = typed === null ? null : namedType(typed);
    if (type !== null) return { kind: "type", type };
    return receiverOf(holder.childForFieldName("value"));
  }
  if (holder.type === "required_parameter" || holder.type === "optional_parameter") {
    const typed = holder.childForFieldName("type");
    const type = typed === null ? null : namedType(typed);
    if (type !== null) return { kind: "type", type };
    // `({ id }: { id: number })`: a property of that anonymous type, no other; the type is
    // known by the function and the parameter's index.
    if (typed?.type === "type_annotation" && typed.namedChildren[0]?.type === "object_type") {
      const parameter = annotatedParameter(typed);
      return {
        kind: "declaration",
        type: null,
        heritage: [],
        declares: "field",
        ...(parameter === null ? {} : { parameter }),
      };
    }
    // `each(({ res }) => res)`: a property of what the callee passes.
    if (typed === null && pattern !== null) return callbackParameter(pattern);
    return { kind: "unknown" };
  }
  return { kind: "unknown" };
}
