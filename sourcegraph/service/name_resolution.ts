/**
 * Where a name is declared, search-based, at one commit: the occurrence's
 * binding in its own file (`symbols/name_bindings.ts`, computed in the
 * parsing worker) is followed: a local or a declaration of the file is the
 * answer; an import is followed to the module it names (relative module
 * paths of TypeScript and JavaScript resolved as bundlers do: the path as
 * written, `.js` written for `.ts`, the usual extensions, `index` files),
 * then to what that module exports under the name (its declaration, an
 * import it re-exports, its `export *` modules), up to `FOLLOW_DEPTH`
 * hops; a member of a namespace import is that module's export, a member
 * of `this` or of a value of an evident type is looked up among that type's
 * declared members. Only files the caller may see are read.
 *
 * `definition` answers with the target; `references` keeps the
 * occurrences that resolve to the same target.
 *
 * @module
 */

import type { NameOccurrence, NameOccurrences } from "../symbols/symbol_extractor.ts";
import {
  type Binding,
  type Declared,
  type LiteralContext,
  type PassedArgument,
  PROPERTY_TYPE,
  type Receiver,
  RETURN_TYPE,
  type TypeArguments,
  VARIABLE_TYPE,
} from "../symbols/name_bindings.ts";
import { scopedRefersTo, type ScopedTarget, scopedTarget } from "./scope_references.ts";
import { platformTypeOf } from "./platform_types.ts";

/** A named type an object literal is of, as the file `path` sees it, with the type arguments written there. */
export interface LiteralType {
  path: string;
  type: string;
  arguments?: TypeArguments;
}

/** Most modules followed from one name (re-exports and `export *` included). */
export const FOLLOW_DEPTH = 8;

/** A declaration a name resolves to. */
export interface ResolvedDeclaration {
  path: string;
  line: number;
  /** 0-based UTF-16 column of the declared name, when known. */
  column: number | null;
  kind: string;
  container: string | null;
  /** How it was found: `scope` (a local or parameter), `file`, `import`, `member`, `index`. */
  via: "scope" | "file" | "import" | "member" | "index";
  /** A member of a class, interface or typed object (its container is the type). */
  member?: boolean;
  /**
   * For a member: whether the symbol index has members of that name in
   * other types too (then a receiver of no evident type is not taken for
   * the target's outside the target's file).
   */
  shared?: boolean;
  /** For a member: the names its type extends or implements (their members' uses are its too). */
  heritage?: string[];
  /** For a function: the named type of each parameter (null: none, or not a named type). */
  parameters?: (string | string[] | null)[];
  /** For a function or method: its parameters' inline function types' parameter types. */
  callbacks?: ((string | null)[] | null)[];
  /** For a function: per parameter typed by a constrained type parameter, the constraint's type. */
  constraints?: (string | null)[];
  /** For a type alias of a function type or an interface with a call signature: its parameters'. */
  parameterTypes?: (string | null)[];
  /** For a type alias or an interface: the named types it is made of or extends. */
  parts?: string[];
  /** For a type alias or an interface: the named type arguments of its generic parts. */
  partArguments?: Record<string, (string | null)[]>;
  /** For an interface or alias with an index signature: the named types of its values. */
  indexValues?: string[];
  /** For a generic type alias or interface: its type parameters' names. */
  typeParameters?: string[];
  /**
   * For a function, a member or a type alias: the type arguments its annotations or its value
   * write, per generic type (`Resolvable<Plugin>`: Plugin).
   */
  typeArguments?: TypeArguments;
  /** For a variable annotated as an array of a named type: that type. */
  elementType?: string;
  /**
   * For a function or method: the named type it returns (a `Promise`'s: what awaiting it
   * gives); for a type with a call signature, what calling a value of it returns.
   */
  returns?: string;
  /** For a variable: the named type its annotation writes. */
  valueType?: string;
  /** For a variable annotated with a generic type: the named type of each type argument. */
  valueArguments?: (string | null)[];
  /** For a function returning an array of a named type: that type. */
  returnsElement?: string;
  /** For a function returning an intersection: its named parts. */
  returnsParts?: string[];
  /** For a type alias of a union with function arms: the named types those functions return. */
  returnedBy?: string[];
  /** For an interface or alias with a construct signature: the named type `new` makes. */
  constructs?: string;
  /** For a property: the named types its annotation writes (a union's arms). */
  valueTypes?: string[];
  /** For a property annotated as an array: the named types of its elements. */
  elementTypes?: string[];
  /** For a property annotated with the type of a value (`retry: typeof retry`): that value. */
  typeQuery?: string;
  /** For a variable set from a call of a named function: that function. */
  setBy?: string;
  /**
   * For a member of an object type annotating a parameter: its function's line, its index
   * (`RETURN_TYPE`: the function's return type).
   */
  parameter?: { line: number; index: number; to?: number; anonymous?: true };
  /** For a member: declared in an object literal (a value's property, not a type's). */
  literal?: boolean;
  /**
   * For a member of an anonymous object (type) written inside a function body: the body's
   * lines (outside them, its file names no value of that type).
   */
  within?: { from: number; to: number };
  /** For a `private` member of a class: the class's lines, where alone it is referred to. */
  private?: { from: number; to: number };
  /** For a property of an object literal passed to a call or `new`: the callee and the index. */
  argument?: PassedArgument;
  /** For a class member: the types it extends or implements that declare the member too. */
  bases?: string[];
  /** For a member found through a value's type: the names that type extends or implements. */
  implemented?: string[];
  /**
   * For a declaration in `declare module "m" { }` where m (this path) does not declare the name
   * itself: every augmentation of m declaring it is the same declaration.
   */
  augmented?: string;
  /** For a name of a language whose scopes are analyzed (not TypeScript): what it is. */
  scope?: ScopedTarget;
  /**
   * For a member found through a type's parts: the other parts' members of the name (a union's
   * arms: a value of it refers to each of them).
   */
  alternatives?: ResolvedDeclaration[];
  /**
   * For a member overriding a member of the platform's `Map` or `Set` (its class extends one, its
   * object's type is made of one): that collection (every use of its member is the member's too).
   */
  platform?: string;
  /**
   * For a key of an object of one of the platform's object types (`ProxyHandler` of a handler
   * passed to `new Proxy`): that type (every object's key of it, and every read of the member on a
   * value annotated with it, is the same member).
   */
  platformType?: string;
}

const SCRIPT_EXTENSIONS = [".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];
const SCRIPT_FILE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

/** Whether a path is a TypeScript or JavaScript file (whose imports are followed). */
export function isScriptPath(path: string): boolean {
  return SCRIPT_FILE.test(path);
}

/** The paths a relative module specifier may name from `from`, likeliest first; none for a package. */
export function moduleCandidates(from: string, specifier: string): string[] {
  const relative = specifier.startsWith("./") || specifier.startsWith("../") ||
    specifier === "." || specifier === "..";
  if (!relative) return [];
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return [];
      parts.pop();
    } else parts.push(part);
  }
  const base = parts.join("/");
  const candidates: string[] = [];
  if (SCRIPT_FILE.test(base)) {
    candidates.push(base);
    const stem = base.replace(/\.(m|c)?jsx?$/, "");
    if (stem !== base) {
      const ts = base.endsWith(".jsx") ? [".tsx"] : [".ts", ".tsx", ".d.ts", ".mts", ".cts"];
      candidates.push(...ts.map((extension) => stem + extension));
    }
  }
  candidates.push(...SCRIPT_EXTENSIONS.map((extension) => base + extension));
  candidates.push(...SCRIPT_EXTENSIONS.map((extension) => `${base}/index${extension}`));
  return candidates;
}

/** One entry of `compilerOptions.paths`: a pattern (`@app/*`) and its targets (`./src/*`). */
export interface PathMapping {
  pattern: string;
  targets: string[];
}

/** The `compilerOptions.paths` of a root `tsconfig.json` text (comments allowed), or null. */
export function pathMappings(text: string | null): PathMapping[] | null {
  if (text === null) return null;
  let parsed: { compilerOptions?: { paths?: Record<string, unknown> } };
  try {
    parsed = JSON.parse(withoutComments(text));
  } catch {
    return null;
  }
  const paths = parsed?.compilerOptions?.paths;
  if (typeof paths !== "object" || paths === null) return null;
  return Object.entries(paths).map(([pattern, targets]) => ({
    pattern,
    targets: Array.isArray(targets) ? targets.filter((t) => typeof t === "string") : [],
  }));
}

// JSON with comments and trailing commas (tsconfig's dialect) as JSON.
function withoutComments(text: string): string {
  const stripped = text.replace(
    /("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g,
    (_, string) => string ?? "",
  );
  return stripped.replace(/,(\s*[}\]])/g, "$1");
}

/** The paths a non-relative specifier may name through the root configuration's `paths`. */
export function mappedCandidates(mappings: PathMapping[], specifier: string): string[] {
  const candidates: string[] = [];
  for (const { pattern, targets } of mappings) {
    const star = pattern.indexOf("*");
    let matched: string | null = null;
    if (star === -1) matched = pattern === specifier ? "" : null;
    else {
      const [prefix, suffix] = [pattern.slice(0, star), pattern.slice(star + 1)];
      const fits = specifier.startsWith(prefix) && specifier.endsWith(suffix) &&
        specifier.length >= prefix.length + suffix.length;
      if (fits) matched = specifier.slice(prefix.length, specifier.length - suffix.length);
    }
    if (matched === null) continue;
    for (const target of targets) {
      const path = target.replace("*", matched);
      const relative = path.startsWith("./") || path.startsWith("../") ? path : `./${path}`;
      candidates.push(...moduleCandidates("tsconfig.json", relative));
    }
  }
  return candidates;
}

/** The files a resolution reads, at one commit, within the caller's path groups. */
export interface ResolutionFiles {
  /** The text of a visible file, or null (missing, hidden, binary or too large). */
  text(path: string): Promise<string | null>;
  /** Whether a visible file is at `path`. */
  exists(path: string): Promise<boolean>;
}

/** What parses files for their occurrences of a name (`ReferenceParser`). */
export interface OccurrenceParser {
  /** The occurrences of `name` in `text`, with their bindings when asked. */
  occurrences(
    path: string,
    text: string,
    name: string,
    options?: { bindings?: boolean },
  ): Promise<NameOccurrences>;
}

/** Resolves names at one commit; analyses are kept for the resolver's life (one request). */
export class NameResolver {
  #parser: OccurrenceParser;
  #files: ResolutionFiles;
  #analyses = new Map<string, Promise<NameOccurrences | null>>();
  #modules = new Map<string, Promise<string | null>>();
  #mentions = new Map<string, Promise<boolean>>();
  #paths: Promise<PathMapping[]> | null = null;

  /** A resolver over `files`, parsing with `parser`. */
  constructor(parser: OccurrenceParser, files: ResolutionFiles) {
    this.#parser = parser;
    this.#files = files;
  }

  /** The occurrences of `name` in `path` with their bindings, or null when it cannot be read. */
  analysis(path: string, name: string): Promise<NameOccurrences | null> {
    const key = `${path}\0${name}`;
    let found = this.#analyses.get(key);
    if (found === undefined) {
      found = this.#files.text(path).then((text) =>
        text === null ? null : this.#parser.occurrences(path, text, name, { bindings: true })
      );
      this.#analyses.set(key, found);
    }
    return found;
  }

  /** The text of `path`, or null when it cannot be read. */
  text(path: string): Promise<string | null> {
    return this.#files.text(path);
  }

  /** Whether the text of `path` holds `word` as a whole word. */
  mentions(path: string, word: string): Promise<boolean> {
    const key = `${path}\0${word}`;
    let found = this.#mentions.get(key);
    if (found === undefined) {
      found = this.#files.text(path).then((text) => text !== null && holdsWord(text, word));
      this.#mentions.set(key, found);
    }
    return found;
  }

  /**
   * The visible file a module specifier names from `from`, or null: a relative specifier, or
   * one the root `tsconfig.json` (else `tsconfig.base.json`) maps with `compilerOptions.paths`.
   */
  async module(from: string, specifier: string): Promise<string | null> {
    let candidates = moduleCandidates(from, specifier);
    if (candidates.length === 0) {
      this.#paths ??= this.#files.text("tsconfig.json").then(async (text) =>
        pathMappings(text) ?? pathMappings(await this.#files.text("tsconfig.base.json")) ?? []
      );
      candidates = mappedCandidates(await this.#paths, specifier);
    }
    const key = candidates[0] ?? "";
    let found = this.#modules.get(key);
    if (found === undefined) {
      found = (async () => {
        for (const candidate of candidates) {
          if (await this.#files.exists(candidate)) return candidate;
        }
        return null;
      })();
      this.#modules.set(key, found);
    }
    return await found;
  }

  /** The occurrence of `name` at `line` and UTF-16 `column` of `path` (parsed with bindings). */
  async occurrenceAt(
    path: string,
    at: { name: string; line: number; column: number },
  ): Promise<NameOccurrence | null> {
    const analysis = await this.analysis(path, at.name);
    return analysis?.occurrences.find((occurrence) =>
      occurrence.line === at.line && occurrence.column === at.column
    ) ?? null;
  }

  /**
   * Where the binding of `name` seen in `path` leads; null when it leads
   * nowhere the files hold (a package, a global, an unknown receiver).
   */
  async follow(
    path: string,
    at: { name: string; binding: Binding; line?: number },
    depth = 0,
  ): Promise<ResolvedDeclaration | null> {
    const { binding, name } = at;
    if (depth > FOLLOW_DEPTH) return null;
    switch (binding.kind) {
      case "local":
        return declared(path, binding, "scope");
      case "file":
        return declared(path, binding, depth === 0 ? "file" : "import");
      case "import": {
        const target = await this.module(path, binding.module);
        if (binding.augments !== undefined) {
          return await this.augmented(path, { target, name, augments: binding.augments }, depth);
        }
        if (target === null) return null;
        if (binding.imported === "*") {
          const via = "import";
          return { path: target, line: 1, column: null, kind: "module", container: null, via };
        }
        return await this.exported(target, binding.imported, depth + 1);
      }
      case "member": {
        const { receiver } = binding;
        return await this.givenMember(path, { name, receiver }) ??
          await this.receiverMember(path, { name, receiver, line: at.line }, depth);
      }
      default:
        return null;
    }
  }

  /**
   * For a value made by a call written with an anonymous object type argument and given an object
   * (`const obj = proxy<{ count: number }>({ count: 0 })`): that type's member `name`, or null.
   */
  async givenMember(
    path: string,
    at: { name: string; receiver: Receiver },
  ): Promise<ResolvedDeclaration | null> {
    const { receiver } = at;
    const typedAt = receiver.kind === "unknown" || receiver.kind === "result"
      ? receiver.typedAt
      : undefined;
    if (typedAt === undefined) return null;
    return await this.typeArgumentMember(path, { member: at.name, typedAt });
  }

  /**
   * Where the member `name` of a value that `receiver` describes leads (as `path` sees it, at
   * `line` when given: a type a block there declares is that block's).
   */
  async receiverMember(
    path: string,
    at: { name: string; receiver: Receiver; line?: number },
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    const { name, receiver } = at;
    if (receiver.kind === "module") {
      const target = await this.module(path, receiver.module);
      return target === null ? null : await this.exported(target, name, depth + 1);
    }
    if (receiver.kind === "declaration") {
      return null; // the caller's own occurrence is the declaration
    }
    if (receiver.kind === "element") {
      return await this.elementMember(path, { ...receiver, member: name }, depth);
    }
    if (receiver.kind === "entry") {
      return await this.entryMember(path, { ...receiver, name }, depth);
    }
    if (receiver.kind === "result") {
      return await this.resultMember(path, { ...receiver, member: name }, depth);
    }
    if (receiver.kind === "property") {
      return await this.propertyMember(path, { ...receiver, member: name }, depth);
    }
    if (receiver.kind === "value") {
      return await this.valueMember(path, { of: receiver.of, member: name }, depth);
    }
    if (receiver.kind === "callback" && receiver.typedAt !== undefined) {
      return await this.typeArgumentMember(path, { member: name, typedAt: receiver.typedAt });
    }
    if (
      receiver.kind === "callback" || receiver.kind === "signature" || receiver.kind === "handler"
    ) {
      return await this.#parameterMember(path, { receiver, name }, depth);
    }
    if (receiver.kind === "props") {
      return await this.propsMember(path, { ...receiver, member: name }, depth);
    }
    if (receiver.kind === "this" && receiver.literal !== undefined) {
      return await this.literalOwnMember(path, { name, ...receiver.literal });
    }
    if (receiver.kind === "this") {
      // A member of the class itself, else of what it extends or implements.
      const types = [receiver.type, ...receiver.heritage];
      return await this.firstMember(path, { types, name, near: at.line }, depth);
    }
    if (receiver.kind === "type" && receiver.union !== undefined) {
      const types = [receiver.type, ...receiver.union];
      return await this.unionMember(path, { types, member: name, near: at.line }, depth);
    }
    if (receiver.kind === "type") {
      return await this.firstMember(path, { types: [receiver.type], name, near: at.line }, depth);
    }
    return null;
  }

  /**
   * For `new X()` of a value X (not a class) cast or annotated as a type with a construct signature
   * (`const Printer = function () {} as any as PrinterConstructor`): the member `member` of the
   * type that signature makes; null for another type.
   */
  async instanceMember(
    value: ResolvedDeclaration,
    member: string,
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    if (value.kind !== "constant" && value.kind !== "variable") return null;
    if (value.valueType === undefined || depth > FOLLOW_DEPTH) return null;
    const type = await this.declarationOf(value.path, value.valueType, depth + 1);
    if (type?.constructs === undefined) return null;
    return await this.member(type.path, { type: type.constructs, member }, depth + 1);
  }

  /**
   * The member `member` of a value of a union of named types (`TypeImport | StaticImport`), as
   * `path` sees them: the first arm's declaring it, with the other arms' as its `alternatives` (a
   * value's member is either's); null when no arm declares it.
   */
  async unionMember(
    path: string,
    at: { types: string[]; member: string; near?: number },
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    const found: ResolvedDeclaration[] = [];
    for (const type of at.types) {
      const each = await this.member(path, { type, member: at.member, near: at.near }, depth + 1);
      if (each !== null) found.push(each, ...each.alternatives ?? []);
    }
    if (found.length <= 1) return found[0] ?? null;
    const [first, ...others] = found;
    return { ...first, alternatives: others.map(({ alternatives: _, ...other }) => other) };
  }

  // The member `name` of a parameter of a callback, a function of a named signature or a typed
  // literal's handler: of the type its callee gives it, else of the signature's or handler's own.
  async #parameterMember(
    path: string,
    at: {
      receiver: Extract<Receiver, { kind: "callback" | "signature" | "handler" }>;
      name: string;
    },
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    const { receiver, name } = at;
    const type = await this.callbackType(path, receiver, depth + 1);
    if (type !== null) {
      return await this.member(type.path, { type: type.type, member: name }, depth + 1);
    }
    if (receiver.kind === "signature") {
      return await this.signatureMember(path, { ...receiver, member: name }, depth + 1);
    }
    return receiver.kind === "handler"
      ? await this.handlerMember(path, { handler: receiver, member: name }, depth + 1)
      : null;
  }

  /**
   * The member `name` of the first of `types` (as `path` sees them at the line `near`) declaring
   * it (each looked up at `depth` + 1), or null.
   */
  async firstMember(
    path: string,
    at: { types: (string | null)[]; name: string; near?: number },
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    for (const type of at.types) {
      if (type === null) continue;
      const found = await this.member(path, { type, member: at.name, near: at.near }, depth + 1);
      if (found !== null) return found;
    }
    return null;
  }

  /**
   * The member `member` of a value `of` the file imports by name: of the type its declaration
   * gives it, else of the untyped object literal it is set to.
   */
  async valueMember(
    path: string,
    at: { of: string; member: string },
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    const type = await this.valueType(path, at.of, depth + 1);
    if (type !== null) {
      return await this.member(type.path, { type: type.type, member: at.member }, depth + 1);
    }
    // The value's declaration, looked up once for both of its shapes.
    const value = await this.#valueDeclaration(path, at.of, depth);
    if (value === null) return null;
    return await this.annotatedValueMember(value, at.member) ??
      await this.literalValueMember(value, at.member);
  }

  /**
   * The member `member` of a value declared at `value` whose declaration annotates it with an
   * anonymous object type (`export const build: { vite: typeof viteBuild } = { ... }`): that
   * type's member; null for another value.
   */
  async annotatedValueMember(
    value: ResolvedDeclaration,
    member: string,
  ): Promise<ResolvedDeclaration | null> {
    return await this.parameterMember(value.path, {
      member,
      line: value.line,
      index: VARIABLE_TYPE,
    });
  }

  /**
   * The member `member` of a value declared at `value` whose declaration sets it to an untyped
   * object literal (`export const actions = { addTodo() {} }`): that literal's key; null for
   * another value.
   */
  async literalValueMember(
    value: ResolvedDeclaration,
    member: string,
  ): Promise<ResolvedDeclaration | null> {
    const text = await this.text(value.path);
    const range = text === null ? null : literalLines(text, value);
    return range === null
      ? null
      : await this.literalOwnMember(value.path, { name: member, ...range });
  }

  // Where a value `of` (as `path` sees it) is declared: a constant or a variable; null for another
  // name.
  async #valueDeclaration(
    path: string,
    of: string,
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    const value = await this.declarationOf(path, of, depth + 1);
    return value !== null && (value.kind === "constant" || value.kind === "variable")
      ? value
      : null;
  }

  /**
   * The member `name` an untyped object literal of `path` (its lines `from` to `to`) declares,
   * what `this` in its methods refers to; null when none there does.
   */
  async literalOwnMember(
    path: string,
    at: { name: string; from: number; to: number },
  ): Promise<ResolvedDeclaration | null> {
    const members = await this.analysis(path, at.name);
    for (const occurrence of members?.occurrences ?? []) {
      const receiver = occurrence.binding?.kind === "member" ? occurrence.binding.receiver : null;
      const { line, column } = occurrence;
      if (
        receiver?.kind === "declaration" && receiver.literal === true && line >= at.from &&
        line <= at.to
      ) {
        const kind = receiver.declares;
        return {
          path,
          line,
          column,
          kind,
          container: null,
          via: "member",
          member: true,
          literal: true,
        };
      }
    }
    return null;
  }

  /**
   * For a member `name` of a value that `on` describes, when the value is set to an untyped
   * object literal holding it as a shorthand property (`export const _private = { generate }`):
   * the declaration of what it holds, so `_private.generate(...)` calls that function, with its
   * parameters and return type. Else `member` itself.
   */
  async shorthandFunction(
    path: string,
    at: { member: ResolvedDeclaration | null; name: string; on: Receiver },
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    const { member, name, on } = at;
    if (member !== null || on.kind !== "value" || depth > FOLLOW_DEPTH) return member;
    const value = await this.declarationOf(path, on.of, depth + 1);
    if (value === null || (value.kind !== "constant" && value.kind !== "variable")) return null;
    const text = await this.text(value.path);
    const range = text === null ? null : literalLines(text, value);
    if (range === null) return null;
    const occurrences = (await this.analysis(value.path, name))?.occurrences ?? [];
    const held = occurrences.some((occurrence) =>
      occurrence.property?.kind === "declaration" && occurrence.property.literal === true &&
      occurrence.line >= range.from && occurrence.line <= range.to
    );
    return held ? await this.declarationOf(value.path, name, depth + 1) : null;
  }

  /**
   * A declaration in `declare module "m" { }` of `path`: m's own declaration of the name, which
   * it merges into; else (m is not in the files, or only re-exports the name) its own, one with
   * every augmentation of m (`augmented`).
   */
  async augmented(
    path: string,
    at: { target: string | null; name: string; augments: Declared },
    depth: number,
  ): Promise<ResolvedDeclaration> {
    const { target, name, augments } = at;
    const found = target === null ? null : await this.exported(target, name, depth + 1);
    if (found !== null && found.path === target) return found;
    return {
      ...declared(path, augments, "file"),
      ...(target === null ? {} : { augmented: target }),
    };
  }

  /** What `path` exports as `name`, followed to its declaration. */
  async exported(path: string, name: string, depth: number): Promise<ResolvedDeclaration | null> {
    if (depth > FOLLOW_DEPTH) return null;
    const analysis = await this.analysis(path, name);
    const exported = analysis?.exported;
    if (!exported) return null;
    if (exported.binding !== null) {
      const found = await this.follow(path, { name, binding: exported.binding }, depth);
      if (found !== null) return { ...found, via: "import" };
    }
    for (const module of exported.starModules) {
      const target = await this.module(path, module);
      const found = target === null ? null : await this.exported(target, name, depth + 1);
      if (found !== null) return found;
    }
    return null;
  }

  /**
   * Where the name `name` seen in `path` is declared (its first binding there), or null; `near`:
   * the line it is seen at, where a block around it declaring the name declares it there.
   */
  async declarationOf(
    path: string,
    name: string,
    depth: number,
    near?: number,
  ): Promise<ResolvedDeclaration | null> {
    const analysis = await this.analysis(path, name);
    // The file's own declaration first: `import { Options as BaseOptions }` next to a
    // declaration of `Options` imports another type, which the file calls otherwise.
    const occurrences = analysis?.occurrences ?? [];
    const seen = (near === undefined ? undefined : innermostLocal(occurrences, near)) ??
      occurrences.find((occurrence) => occurrence.binding?.kind === "file") ??
      occurrences.find((occurrence) =>
        occurrence.binding !== undefined && occurrence.binding.kind !== "member" &&
        occurrence.binding.kind !== "free"
      );
    if (seen?.binding === undefined) return null;
    return await this.follow(path, { name, binding: seen.binding }, depth);
  }

  /**
   * The declaration of the property `member` of the props of `component`
   * as `path` sees it (`line`: its declaration's in `path`, when a block
   * declares it): a member of the anonymous object type annotating its first
   * parameter, else of a named type of the component's own file.
   */
  async propsMember(
    path: string,
    at: { component: string; member: string; line?: number },
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    // `const Counter = ({ count }: { count: number }) => ...`: its props' anonymous type's (of
    // the component declared in a block around the element, when one is).
    const { member } = at;
    if (at.line !== undefined) {
      const own = await this.parameterMember(path, { member, line: at.line, index: 0 });
      if (own !== null) return own;
    }
    const component = await this.declarationOf(path, at.component, depth + 1, at.line);
    if (component === null) return null;
    const { line } = component;
    const own = await this.parameterMember(component.path, { member, line, index: 0 });
    if (own !== null) return own;
    // `function Component({ equalityFn }: Props)`: its props' named type, as its block sees it.
    for (const type of [component.parameters?.[0] ?? []].flat()) {
      const found = await this.member(component.path, { type, member, near: line }, depth + 1);
      if (found !== null) return found;
    }
    const members = await this.analysis(component.path, at.member);
    for (const occurrence of members?.occurrences ?? []) {
      const receiver = occurrence.binding?.kind === "member" ? occurrence.binding.receiver : null;
      if (receiver?.kind === "declaration" && receiver.type !== null) {
        return {
          path: component.path,
          line: occurrence.line,
          column: occurrence.column,
          kind: receiver.declares,
          container: receiver.type,
          via: "member",
          member: true,
        };
      }
    }
    return null;
  }

  /**
   * For a property of an object literal: the member of the type the literal
   * evidently is (its annotation's, or the parameter's of the function it is
   * passed to), or null.
   */
  async literalMember(
    path: string,
    at: { member: string; receiver: Extract<Receiver, { kind: "declaration" }>; line?: number },
  ): Promise<ResolvedDeclaration | null> {
    const { member, receiver } = at;
    if (receiver.type !== null) {
      // `const mixed: BuildContext & Context = { warn() {} }`: the part declaring the key.
      const types = [receiver.type, ...receiver.intersected ?? []];
      return await this.firstMember(path, { types, name: member, near: at.line }, 0);
    }
    // `const cases: { name: string }[] = [{ name }]`: the variable's anonymous type's member.
    const { parameter } = receiver;
    if (receiver.intersected !== undefined && parameter?.index === RETURN_TYPE) {
      return await this.returnedLiteralMember(path, { member, parameter, ...receiver });
    }
    if (parameter?.index === VARIABLE_TYPE) {
      return await this.parameterMember(path, { ...parameter, member });
    }
    const { argument, typedAt } = receiver;
    const declared = argument === undefined ? null : await this.declaredParameterMember(path, {
      ...argument,
      member,
    });
    if (declared !== null) return declared;
    const taken = typedAt === undefined || argument?.on === undefined ||
      await takesTypeArgument(this, path, argument);
    const typed = await argumentTyped(this, path, argument);
    const near = at.line;
    const made = taken
      ? await this.typeArgumentMember(path, { member, typed, typedAt, near })
      : null;
    if (made !== null) return made;
    const { signed, handled, nested } = receiver;
    if (signed !== undefined || handled !== undefined || nested !== undefined) {
      // `{ retry: { limit } }`: the member of the outer literal's property's type; an object a
      // function of a named function type returns: its return type's.
      for (const each of await this.literalTypes(path, receiver, 0)) {
        const found = await this.member(each.path, { ...each, member }, 1);
        if (found !== null) return found;
      }
    }
    if (receiver.nested !== undefined) {
      for (const holder of await this.nestedHolders(path, receiver.nested, 0)) {
        const found = await this.propertyTypeMember(holder, member);
        if (found !== null) return found;
      }
      return null;
    }
    return receiver.argument === undefined
      ? null
      : await this.#argumentMember(path, { argument: receiver.argument, member });
  }

  // The member `member` of an object passed to (or returned from a function passed to) a call:
  // of the callee's parameter type, named or written there.
  async #argumentMember(
    path: string,
    at: { argument: NonNullable<LiteralContext["argument"]>; member: string },
  ): Promise<ResolvedDeclaration | null> {
    const { argument, member } = at;
    if (argument.returned) {
      for (const each of await this.returnedTypes(path, argument)) {
        const found = await this.member(each.path, { ...each, member }, 1);
        if (found !== null) return found;
      }
      return null;
    }
    const { index } = argument;
    const callee = await this.calleeOf(path, argument);
    const type = callee?.parameters?.[index];
    if (callee === null || type === undefined) return null;
    for (const each of type === null ? [] : [type].flat()) {
      const written = { type: each, member, arguments: callee.typeArguments };
      const found = await this.member(callee.path, written, 1);
      if (found !== null) return found;
    }
    // An anonymous object type the parameter is written with, alone or as a part
    // (`Partial<Options & { fancy: boolean }>`).
    return await this.parameterMember(callee.path, { member, line: callee.line, index });
  }

  /**
   * For an object passed to a function the files declare with a named type for that parameter
   * (`load<T>(options: LoadOptions<T>)`): that type's member `member`, which the call's type
   * argument does not change (`load<UserConfig>({ cwd })` is LoadOptions' `cwd`); null when the
   * callee is a method of a value (its type arguments are read elsewhere), or the parameter's
   * type declares no such member (`atom<Value>(initial: Value)`: a type parameter).
   */
  async declaredParameterMember(
    path: string,
    at: { callee: string; index: number; on?: Receiver; typed?: string; member: string },
  ): Promise<ResolvedDeclaration | null> {
    if (at.on !== undefined || at.typed === undefined) return null;
    const callee = await this.calleeOf(path, at);
    for (const type of [callee?.parameters?.[at.index] ?? []].flat()) {
      const found = await this.member(callee!.path, { type, member: at.member }, 1);
      if (found !== null) return found;
    }
    return null;
  }

  /**
   * For an object passed to a call written with a type argument, or to a method of a value a call
   * written with one made (`atom<Item>({ ... })`, `$store.set({ ... })`): that type argument's
   * member `member` (of a named type, or of the anonymous object type written at its lines), or
   * null.
   */
  async typeArgumentMember(
    path: string,
    at: { member: string; typed?: string; typedAt?: { from: number; to: number }; near?: number },
  ): Promise<ResolvedDeclaration | null> {
    const { member, typed, near } = at;
    if (typed !== undefined) return await this.member(path, { type: typed, member, near }, 1);
    const range = at.typedAt;
    if (range === undefined) return null;
    const members = await this.analysis(path, member);
    for (const occurrence of members?.occurrences ?? []) {
      const declared = occurrence.binding?.kind === "member" ? occurrence.binding.receiver : null;
      const { line, column } = occurrence;
      if (
        declared?.kind === "declaration" && declared.type === null && declared.literal !== true &&
        line >= range.from && line <= range.to
      ) {
        return await resolveAt(this, { path, name: member, line, column });
      }
    }
    return null;
  }

  /**
   * The member `member` of the anonymous object type annotating the parameter at `index` of the
   * function named at `line` of `path` (`function f(opts: { member: string })`), or null.
   */
  async parameterMember(
    path: string,
    at: { member: string; line: number; index: number },
  ): Promise<ResolvedDeclaration | null> {
    const members = await this.analysis(path, at.member);
    for (const occurrence of members?.occurrences ?? []) {
      const declared = occurrence.binding?.kind === "member" ? occurrence.binding.receiver : null;
      if (
        declared?.kind === "declaration" && declared.parameter?.line === at.line &&
        declared.parameter.index === at.index && declared.literal !== true
      ) {
        // An object returned as the type (`return { cwd }` of `Pick<Options, "cwd"> & { ... }`)
        // is a value of it: its keys declare none of the type's members.
        const { line, column } = occurrence;
        const { declares: kind, parameter } = declared;
        const via = "member";
        // `mixed: BuildContext & Context`: a value of it has its named types' members.
        const valued = declared.valueTypes ? { valueTypes: declared.valueTypes } : {};
        return {
          path,
          line,
          column,
          kind,
          container: null,
          via,
          member: true,
          parameter,
          ...valued,
        };
      }
    }
    return null;
  }

  /**
   * The named types an object literal in `path` is of, each with the file that sees it: its own,
   * its parameter's in the call it is passed to, or the property's type of its outer literal.
   */
  async literalTypes(
    path: string,
    context: LiteralContext,
    depth: number,
  ): Promise<LiteralType[]> {
    if (context.type !== null) return [{ path, type: context.type }];
    if (depth > FOLLOW_DEPTH) return [];
    if (context.argument?.returned) return await this.returnedTypes(path, context.argument);
    if (context.handled !== undefined) return await this.handledTypes(path, context.handled, depth);
    if (context.signed !== undefined) {
      // What a function of a named function type returns: that type's call signature's return.
      const declared = await this.declarationOf(path, context.signed, depth + 1);
      return declared?.returns === undefined
        ? []
        : [{ path: declared.path, type: declared.returns }];
    }
    // An object passed to a call written with a type argument (`atom<Item>({ ... })`, a map's
    // `set`): of that type.
    const typed = await argumentTyped(this, path, context.argument);
    if (typed !== undefined) return [{ path, type: typed }];
    if (context.argument !== undefined) {
      const callee = await this.calleeOf(path, context.argument);
      // A constrained type parameter (`hooks: T` of `<T extends Partial<Hooks>>`): its constraint.
      const { index } = context.argument;
      const types = [callee?.constraints?.[index] ?? callee?.parameters?.[index] ?? []].flat();
      const { typeArguments } = callee ?? {};
      const written = typeArguments === undefined ? {} : { arguments: typeArguments };
      return callee === null ? [] : types.map((type) => ({ path: callee.path, type, ...written }));
    }
    if (context.nested === undefined) return [];
    const { key, outer, element } = context.nested;
    const found: LiteralType[] = await this.anonymousKeyTypes(path, context.nested);
    for (const each of await this.literalTypes(path, outer, depth + 1)) {
      const member = await this.member(each.path, { ...each, member: key }, depth + 1);
      // `{ build: { ... } }` of a `Record<string, Command>`: each key holds a Command.
      if (member === null && !element) found.push(...await this.recordValues(each, depth + 1));
      const written = member?.typeArguments === undefined
        ? {}
        : { arguments: member.typeArguments };
      // `{ children: [{ ... }] }`: an element of the key's array type.
      for (const type of (element ? member?.elementTypes : member?.valueTypes) ?? []) {
        found.push({ path: member!.path, type, ...written });
      }
    }
    return found;
  }

  /**
   * The named types an object returned by a function set under a typed literal's key is of: the
   * return types of the function types that key's member is annotated with (a `Record`'s values
   * where the literal's type is one), or the member's own (a method).
   */
  async handledTypes(
    path: string,
    handled: { key: string; outer: LiteralContext },
    depth: number,
  ): Promise<LiteralType[]> {
    const found: LiteralType[] = [];
    for (const each of await this.literalTypes(path, handled.outer, depth + 1)) {
      const member = await this.member(each.path, { ...each, member: handled.key }, depth + 1);
      if (member?.returns !== undefined) found.push({ path: member.path, type: member.returns });
      const functions = member === null
        ? await this.recordValues(each, depth + 1)
        : (member.valueTypes ?? []).map((type) => ({ path: member.path, type }));
      for (const named of functions) {
        const declared = await this.declarationOf(named.path, named.type, depth + 1);
        if (declared?.returns !== undefined) {
          found.push({ path: declared.path, type: declared.returns });
        }
      }
    }
    return found;
  }

  /**
   * The named types an object returned by a function passed as `argument` is of: what the callee's
   * parameter type says such a function returns (a function type's return, a union's function
   * arms'), a type parameter of that type standing for the argument written for it
   * (`Resolvable<Plugin>` of `type Resolvable<T> = T | (() => T)`: Plugin).
   */
  async returnedTypes(
    path: string,
    argument: { callee: string; index: number; module?: string; on?: Receiver },
  ): Promise<LiteralType[]> {
    const callee = await this.calleeOf(path, argument);
    if (callee === null) return [];
    const found: LiteralType[] = [];
    for (const named of [callee.parameters?.[argument.index] ?? []].flat()) {
      const type = await this.declarationOf(callee.path, named, 2);
      if (type === null) continue;
      const parameters = type.typeParameters ?? [];
      for (const returned of [...type.returnedBy ?? [], ...type.returns ? [type.returns] : []]) {
        const at = parameters.indexOf(returned);
        const written = at === -1 ? returned : callee.typeArguments?.[named]?.[at];
        if (!written) continue;
        found.push(
          at === -1
            ? { path: type.path, type: written }
            : { path: callee.path, type: written, arguments: callee.typeArguments },
        );
      }
    }
    return found;
  }

  /**
   * The value type of a `Record<K, V>` a literal type is (the platform's `Record` written with
   * its arguments, a type alias of one, a generic alias standing for one as its argument): V, as
   * the file writing it sees it; the value types of its index signature (`[key: string]: Value |
   * Input`), those of the keys it does not declare; empty for another type.
   */
  async recordValues(each: LiteralType, depth: number): Promise<LiteralType[]> {
    if (depth > FOLLOW_DEPTH) return [];
    const type = await this.declarationOf(each.path, each.type, depth + 1);
    if (type === null) {
      const value = each.type === "Record" ? each.arguments?.Record?.[1] : null;
      return value ? [{ ...each, type: value }] : [];
    }
    const value = type.parts?.includes("Record") ? type.partArguments?.Record?.[1] : null;
    if (value) {
      const written = type.typeArguments === undefined ? {} : { arguments: type.typeArguments };
      return [{ path: type.path, type: value, ...written }];
    }
    const names = each.arguments?.[each.type] ?? [];
    const parameters = type.typeParameters ?? [];
    const found = (type.indexValues ?? []).map((value) => ({ path: type.path, type: value }));
    for (const part of type.parts ?? []) {
      const argument = names[parameters.indexOf(part)];
      if (!parameters.includes(part) || !argument) continue;
      found.push(...await this.recordValues({ ...each, type: argument }, depth + 1));
    }
    return found;
  }

  /**
   * The function an object is passed to, as `path` sees it (through a namespace import too, or
   * a method of a value of evident type); for a value of a type with a call signature, that
   * signature's parameters.
   */
  async calleeOf(
    path: string,
    argument: { callee: string; module?: string; on?: Receiver },
  ): Promise<ResolvedDeclaration | null> {
    if (argument.on !== undefined) {
      const on = { name: argument.callee, receiver: argument.on };
      const key = await this.receiverMember(path, on, 1);
      const member = await this.shorthandFunction(path, {
        member: key,
        name: on.name,
        on: on.receiver,
      }, 2);
      if (member?.parameters !== undefined || member?.typeQuery === undefined) return member;
      // `retry: typeof retry`: the member is that function, its parameters the objects'.
      return await this.declarationOf(member.path, member.typeQuery, 2) ?? member;
    }
    if (argument.module !== undefined) {
      const target = await this.module(path, argument.module);
      return target === null ? null : await this.exported(target, argument.callee, 1);
    }
    const callee = await this.declarationOf(path, argument.callee, 1);
    if (callee === null) return null;
    // `const driver: DriverFactory<Options> = (opts) => ...`: the annotation types `opts`.
    const untyped = callee.parameters?.every((type) => type === null) ?? true;
    if (callee.parameters !== undefined && !(untyped && callee.valueType !== undefined)) {
      return callee;
    }
    const signature = await this.signatureOf(callee, 2);
    if (signature?.parameterTypes === undefined) return callee;
    const given = substituted(signature, callee.valueArguments);
    if (given !== null) return { ...callee, parameters: given };
    // A type parameter of the signature's type (`AtomFamily<Param>`'s `Param`, a name of its
    // scope only) names no type the objects passed are of.
    const parameters = await Promise.all(signature.parameterTypes.map(async (type) => {
      const declared = type === null ? null : await this.declarationOf(signature.path, type, 2);
      return declared !== null && declared.via !== "scope" ? type : null;
    }));
    return parameters.some((type) => type !== null) ? { ...signature, parameters } : callee;
  }

  /**
   * The type a value `name` seen in `path` is of: its declaration's annotation, what the call
   * setting it returns, or the class or enum itself (`Type.member`); null when none is evident.
   */
  async valueType(
    path: string,
    name: string,
    depth: number,
  ): Promise<{ path: string; type: string } | null> {
    if (depth > FOLLOW_DEPTH) return null;
    const value = await this.declarationOf(path, name, depth + 1);
    return value === null ? null : await this.typeOfValue(value, name, depth + 1);
  }

  // The type of the value `value` declares (named `name`), as its file sees it.
  async typeOfValue(
    value: ResolvedDeclaration,
    name: string,
    depth: number,
  ): Promise<{ path: string; type: string } | null> {
    if (["class", "enum", "interface", "module"].includes(value.kind)) {
      return { path: value.path, type: name };
    }
    if (value.valueType !== undefined) return { path: value.path, type: value.valueType };
    if (value.setBy === undefined || depth > FOLLOW_DEPTH) return null;
    const fn = await this.declarationOf(value.path, value.setBy, depth + 1);
    return fn?.returns === undefined ? null : { path: fn.path, type: fn.returns };
  }

  // The declaration of the type of the value `callee` declares, when that type has a call
  // signature (its `parameterTypes` or `returns`), else null.
  async signatureOf(
    callee: ResolvedDeclaration,
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    if (callee.kind !== "constant" && callee.kind !== "variable") return null;
    const type = await this.typeOfValue(callee, "", depth);
    if (type === null) return null;
    const declared = await this.declarationOf(type.path, type.type, depth + 1);
    return declared?.parameterTypes !== undefined || declared?.returns !== undefined
      ? declared
      : null;
  }

  /**
   * The member `name` of a value of the record a receiver `of` describes (`Object.values(defs)`):
   * of the value type of the `Record<K, V>` its type is; null when no type is evident.
   */
  async entryMember(
    path: string,
    at: { of: Receiver; name: string },
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    if (at.of.kind !== "type" || depth > FOLLOW_DEPTH) return null;
    for (const each of await this.recordValues({ path, type: at.of.type }, depth + 1)) {
      const found = await this.member(each.path, { ...each, member: at.name }, depth + 1);
      if (found !== null) return found;
    }
    return null;
  }

  /**
   * The member `member` of an element of the array `of` (as `path` sees it): of the element type
   * its declaration names, as the declaring file sees that type; null when it names none.
   */
  async elementMember(
    path: string,
    at: { of: string; on?: Receiver; member: string },
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    if (depth > FOLLOW_DEPTH) return null;
    if (at.on !== undefined) {
      // `config.layers.map((layer) => layer.cwd)`: of the member's annotated element type.
      const holder = await this.receiverMember(path, { name: at.of, receiver: at.on }, depth + 1);
      if (holder === null) return null;
      for (const type of holder.elementTypes ?? []) {
        const found = await this.member(holder.path, { type, member: at.member }, depth + 1);
        if (found !== null) return found;
      }
      return null;
    }
    const array = await this.declarationOf(path, at.of, depth + 1);
    if (array?.elementType === undefined && array?.setBy !== undefined) {
      // An imported `export const commits = parse(raw)` of `parse(): Commit[]`: a Commit.
      const result = { of: array.setBy, element: true as const, member: at.member };
      return await this.resultMember(array.path, result, depth + 1);
    }
    if (array?.elementType === undefined) {
      // `export const meta: { name: string }[] = [...]`: of the variable's anonymous element type.
      const { kind } = array ?? {};
      return array === null || (kind !== "constant" && kind !== "variable")
        ? null
        : await this.parameterMember(array.path, {
          member: at.member,
          line: array.line,
          index: VARIABLE_TYPE,
        });
    }
    return await this.member(array.path, { type: array.elementType, member: at.member }, depth + 1);
  }

  /**
   * The member `member` of the value of the member `of` of a value `on` describes (as `path`
   * sees it): of a named type that member's annotation writes; null when none declares it.
   */
  async propertyMember(
    path: string,
    at: { of: string; on: Receiver; member: string },
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    if (depth > FOLLOW_DEPTH) return null;
    const holder = await this.receiverMember(path, { name: at.of, receiver: at.on }, depth + 1);
    if (holder === null) return null;
    for (const type of holder.valueTypes ?? []) {
      const found = await this.member(holder.path, { type, member: at.member }, depth + 1);
      if (found !== null) return found;
    }
    return await this.propertyTypeMember(holder, at.member);
  }

  /**
   * The member `member` of the anonymous object type a named function type gives its parameter
   * at `parameter` (`type Provider = (options: { auth?: string }) => Info`), or null.
   */
  async signatureMember(
    path: string,
    at: { type: string; parameter: number; member: string },
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    const declared = await this.declarationOf(path, at.type, depth + 1);
    if (declared === null) return null;
    const { member, parameter: index } = at;
    return await this.parameterMember(declared.path, { member, line: declared.line, index });
  }

  /**
   * The member `member` of the anonymous object type annotating the property `holder`
   * (`extend?: false | { extendKey?: string }`), or null.
   */
  async propertyTypeMember(
    holder: ResolvedDeclaration,
    member: string,
  ): Promise<ResolvedDeclaration | null> {
    if (holder.member !== true) return null;
    const at = { member, line: holder.line, index: PROPERTY_TYPE };
    return await this.parameterMember(holder.path, at);
  }

  /**
   * For an object literal that is another literal's property's value (`{ extend: { ... } }`):
   * that property's declarations (the outer literal's type's member), as their files see them.
   */
  async nestedHolders(
    path: string,
    nested: { key: string; outer: LiteralContext },
    depth: number,
  ): Promise<ResolvedDeclaration[]> {
    const found: ResolvedDeclaration[] = [];
    const anonymous = await this.anonymousKey(path, nested);
    if (anonymous !== null) found.push(anonymous);
    for (const each of await this.literalTypes(path, nested.outer, depth + 1)) {
      const member = await this.member(each.path, { type: each.type, member: nested.key }, 1);
      if (member !== null) found.push(member);
    }
    return found;
  }

  /**
   * For an object literal under a key of an object of the anonymous type annotating a variable
   * (`const cases: Array<{ format: Options }> = [{ format: { ... } }]`): that type's member of the
   * key, or null for another literal.
   */
  async anonymousKey(
    path: string,
    nested: { key: string; outer: LiteralContext },
  ): Promise<ResolvedDeclaration | null> {
    const { outer, key } = nested;
    if (outer.type !== null || outer.parameter?.index !== VARIABLE_TYPE) return null;
    const found = await this.parameterMember(path, { member: key, ...outer.parameter });
    if (found === null) return null;
    // With the named types its annotation writes, which the objects under the key are of.
    const at = { name: key, line: found.line, column: found.column ?? 0 };
    const binding = (await this.occurrenceAt(path, at))?.binding;
    const declared = binding?.kind === "member" ? binding.receiver : null;
    if (declared?.kind !== "declaration") return found;
    const { valueTypes, elementTypes } = declared;
    return {
      ...found,
      ...(valueTypes ? { valueTypes } : {}),
      ...(elementTypes ? { elementTypes } : {}),
    };
  }

  /** The named types (`valueTypes`, or `elementTypes` for an element) of `anonymousKey`'s member. */
  async anonymousKeyTypes(
    path: string,
    nested: { key: string; outer: LiteralContext; element?: boolean },
  ): Promise<LiteralType[]> {
    const holder = await this.anonymousKey(path, nested);
    const types = (nested.element ? holder?.elementTypes : holder?.valueTypes) ?? [];
    return types.map((type) => ({ path: holder!.path, type }));
  }

  /**
   * The member `member` of what a call of the function `of` returns (as `path` sees the
   * function): of the named return type its declaration writes, as the declaring file sees that
   * type; null when it writes none.
   */
  async resultMember(
    path: string,
    at: { of: string; on?: Receiver; awaited?: boolean; element?: true; member: string },
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    if (depth > FOLLOW_DEPTH) return null;
    let fn = at.on === undefined
      ? await this.declarationOf(path, at.of, depth + 1)
      : await this.shorthandFunction(path, {
        member: await this.receiverMember(path, { name: at.of, receiver: at.on }, depth + 1),
        name: at.of,
        on: at.on,
      }, depth + 1);
    if (at.element === true) {
      // An element of the array the call returns: of the element type its declaration writes.
      const type = fn?.returnsElement;
      return type === undefined
        ? null
        : await this.member(fn!.path, { type, member: at.member }, 1 + depth);
    }
    // A function whose return type is written as an anonymous object type
    // (`function debug(): { close: () => void }`): that type's member.
    const anonymous = fn !== null && fn.returns === undefined
      ? await this.returnedPartMember(fn, at.member, depth)
      : null;
    if (anonymous !== null) return anonymous;
    // A value of a type with a call signature (`const client: Client`, `client()`).
    if (fn !== null && fn.returns === undefined) fn = await this.signatureOf(fn, depth + 1);
    if (fn?.returns === undefined) return null;
    if (at.awaited === true) {
      // Awaiting a value of a type that is itself a promise (`{ json(): ... } & Promise<R>`)
      // gives its value, R, of another type than the one named.
      const type = await this.declarationOf(fn.path, fn.returns, depth + 1);
      if (type?.parts?.includes("Promise") === true) {
        const value = type.partArguments?.Promise?.[0];
        return value
          ? await this.member(type.path, { type: value, member: at.member }, depth + 1)
          : null;
      }
    }
    return await this.member(fn.path, { type: fn.returns, member: at.member }, depth + 1) ??
      await this.returnedPartMember(fn, at.member, depth);
  }

  /**
   * For a key of an object returned as a return type's intersection (`return { cwd }` of
   * `Promise<Pick<Options, "cwd"> & { manager: Manager }>`): the anonymous part's member, else
   * the first named part's declaring it; null when none does.
   */
  async returnedLiteralMember(
    path: string,
    at: { member: string; parameter: { line: number; index: number }; intersected?: string[] },
  ): Promise<ResolvedDeclaration | null> {
    const { member, parameter } = at;
    const anonymous = { member, line: parameter.line, index: parameter.index };
    return await this.parameterMember(path, anonymous) ??
      await this.firstMember(path, { types: at.intersected ?? [], name: member }, 1);
  }

  /**
   * The member `member` of the anonymous object type a function's return type is or holds (a part
   * of its intersection or union, `(Manager & { warnings?: string[] }) | undefined`), else of the
   * first named part of its intersection declaring it; null when none does.
   */
  async returnedPartMember(
    fn: ResolvedDeclaration,
    member: string,
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    const at = { member, line: fn.line, index: RETURN_TYPE };
    return await this.parameterMember(fn.path, at) ??
      await this.firstMember(fn.path, { types: fn.returnsParts ?? [], name: member }, depth);
  }

  /**
   * The named type a callback's parameter is given (as the file returned sees it): the callee's
   * parameter's inline function type's, or that of the function type or call signature its
   * parameter's named type (or one of a union's) declares; null when none is evident.
   */
  async callbackType(
    path: string,
    callback: Extract<Receiver, { kind: "callback" | "signature" | "handler" }>,
    depth: number,
  ): Promise<{ path: string; type: string } | null> {
    if (depth > FOLLOW_DEPTH) return null;
    if (callback.kind === "handler") return await this.handlerType(path, callback, depth);
    if (callback.kind === "signature") {
      const declared = await this.declarationOf(path, callback.type, depth + 1);
      const type = declared?.parameterTypes?.[callback.parameter];
      // `DriverFactory<Options>` of `type DriverFactory<O> = (opts: O) => ...`: an Options.
      const at = type ? declared?.typeParameters?.indexOf(type) ?? -1 : -1;
      const given = at === -1 ? null : callback.given?.[at];
      if (given) return { path, type: given };
      return declared !== null && type ? { path: declared.path, type } : null;
    }
    const callee = callback.of === undefined
      ? await this.calleeOf(path, callback)
      : await this.receiverMember(path, { name: callback.callee, receiver: callback.of }, depth);
    if (callee === null) return null;
    const inline = callee.callbacks?.[callback.argument]?.[callback.parameter];
    if (inline) return { path: callee.path, type: inline };
    for (const named of [callee.parameters?.[callback.argument] ?? []].flat()) {
      const declared = await this.declarationOf(callee.path, named, depth + 1);
      const type = declared?.parameterTypes?.[callback.parameter];
      if (declared !== null && type) return { path: declared.path, type };
    }
    return null;
  }

  /**
   * The named type a parameter of a function set as a typed literal's property (or an element of
   * its array) is given: that of the function type the property's type names.
   */
  async handlerType(
    path: string,
    handler: Extract<Receiver, { kind: "handler" }>,
    depth: number,
  ): Promise<{ path: string; type: string } | null> {
    for (const each of await this.literalTypes(path, handler.outer, depth + 1)) {
      const member = await this.member(each.path, { ...each, member: handler.key }, 1);
      if (member === null) continue;
      for (const named of (handler.element ? member.elementTypes : member.valueTypes) ?? []) {
        const declared = await this.declarationOf(member.path, named, depth + 1);
        const type = declared?.parameterTypes?.[handler.parameter];
        if (declared !== null && type) return { path: declared.path, type };
      }
      // A method, or a property of a function type written inline (`match: (route: Route) =>
      // unknown`): its own parameter's named type.
      const [own] = [member.parameters?.[handler.parameter] ?? []].flat();
      if (!handler.element && own) return { path: member.path, type: own };
    }
    return null;
  }

  /**
   * The member `member` of the anonymous object type annotating the parameter a typed literal's
   * function passes its handler (`onWatch: (event) => event.type` of `onWatch?: (event: { type:
   * string }) => void`), or null.
   */
  async handlerMember(
    path: string,
    at: { handler: Extract<Receiver, { kind: "handler" }>; member: string },
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    const { handler, member } = at;
    if (handler.element || depth > FOLLOW_DEPTH) return null;
    for (const each of await this.literalTypes(path, handler.outer, depth + 1)) {
      const holder = await this.member(each.path, { type: each.type, member: handler.key }, 1);
      if (holder === null) continue;
      const { line } = holder;
      const found = await this.parameterMember(holder.path, {
        member,
        line,
        index: handler.parameter,
      });
      if (found !== null) return found;
    }
    return null;
  }

  /**
   * The declaration of member `member` of type `type` as `path` sees the type (at the line `near`,
   * when a block there declares it); `arguments`: the type arguments written where `type` is named
   * (in `path`), per generic type.
   */
  async member(
    path: string,
    at: { type: string; member: string; arguments?: TypeArguments; near?: number },
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    const type = await this.declarationOf(path, at.type, depth, at.near);
    if (type === null) return null;
    const made = await this.instanceMember(type, at.member, depth);
    if (made !== null) return made;
    const members = await this.analysis(type.path, at.member);
    for (const occurrence of ownMembers(members?.occurrences ?? [], type)) {
      const receiver = occurrence.binding?.kind === "member" ? occurrence.binding.receiver : null;
      // A literal of the type is a value of it, not where the type declares the member.
      if (receiver?.kind === "declaration" && receiver.type === at.type && !receiver.literal) {
        return {
          path: type.path,
          line: occurrence.line,
          column: occurrence.column,
          kind: receiver.declares,
          container: at.type,
          via: "member",
          member: true,
          ...(receiver.heritage.length > 0 ? { implemented: receiver.heritage } : {}),
          ...(receiver.parameters ? { parameters: receiver.parameters } : {}),
          ...(receiver.callbacks ? { callbacks: receiver.callbacks } : {}),
          ...(receiver.returns ? { returns: receiver.returns } : {}),
          ...(receiver.valueTypes ? { valueTypes: receiver.valueTypes } : {}),
          ...(receiver.typeQuery ? { typeQuery: receiver.typeQuery } : {}),
          ...(receiver.elementTypes ? { elementTypes: receiver.elementTypes } : {}),
          ...(receiver.typeArguments ? { typeArguments: receiver.typeArguments } : {}),
        };
      }
    }
    // `type WithAlg = { alg: string } & VerifyOptions`, `interface B extends A`: a member of a
    // part.
    if (depth > FOLLOW_DEPTH) return null;
    const parts = await this.partMembers(type, at.member, depth);
    if (parts !== null) return parts;
    for (const [part, names] of Object.entries(type.partArguments ?? {})) {
      const found = await this.argumentMember(type.path, { part, names, member: at.member }, depth);
      if (found !== null) return found;
    }
    // `Resolvable<Plugin>` of `type Resolvable<T> = T | Promise<T> | (() => T)`: the argument's.
    const names = at.arguments?.[at.type];
    if (names === undefined) return null;
    const written = { part: at.type, names, member: at.member, arguments: at.arguments };
    return await this.argumentMember(path, written, depth);
  }

  /**
   * The member `member` of the parts of `type` (as its file sees them): the first part's declaring
   * it, with the other parts' declaring it too as its `alternatives` (`type State = ObjectState
   * | MapState`: a value's `copy_` is either's); null when no part declares it.
   */
  async partMembers(
    type: ResolvedDeclaration,
    member: string,
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    const found: ResolvedDeclaration[] = [];
    for (const part of type.parts ?? []) {
      const each = await this.member(type.path, { type: part, member }, depth + 1);
      if (each !== null) found.push(each, ...each.alternatives ?? []);
    }
    if (found.length <= 1) return found[0] ?? null;
    const [first, ...others] = found;
    return { ...first, alternatives: others.map(({ alternatives: _, ...other }) => other) };
  }

  /**
   * The member `member` of the type argument a generic part of a type stands for, where that
   * part's declaration is made of its type parameter (`Required<Options, "fetch">` with
   * `type Required<T, K> = T & { ... }`: Options's member); null otherwise.
   */
  async argumentMember(
    path: string,
    at: { part: string; names: (string | null)[]; member: string; arguments?: TypeArguments },
    depth: number,
  ): Promise<ResolvedDeclaration | null> {
    const generic = await this.declarationOf(path, at.part, depth + 1);
    const parameters = generic?.typeParameters ?? [];
    for (const part of generic?.parts ?? []) {
      const argument = at.names[parameters.indexOf(part)];
      if (parameters.includes(part) && argument) {
        const each = { type: argument, member: at.member, arguments: at.arguments };
        const found = await this.member(path, each, depth + 1);
        if (found !== null) return found;
      }
    }
    return null;
  }
}

// For a value annotated with a generic function type written with type arguments
// (`const driver: DriverFactory<FSOptions>` of `type DriverFactory<O> = (opts: O) => ...`): the
// type argument each parameter of a type parameter's type stands for (named as the value's file
// sees it), null for another parameter; null when no parameter is of one.
function substituted(
  signature: ResolvedDeclaration,
  given: (string | null)[] | undefined,
): (string | null)[] | null {
  const parameters = signature.typeParameters ?? [];
  if (given === undefined || parameters.length === 0) return null;
  const types = (signature.parameterTypes ?? []).map((type) => {
    const at = type === null ? -1 : parameters.indexOf(type);
    return at === -1 ? null : given[at] ?? null;
  });
  return types.some((type) => type !== null) ? types : null;
}

/**
 * The declaration the occurrence of `name` at `line` and UTF-16 `column` of
 * `path` resolves to through the files, or null.
 */
export async function resolveAt(
  resolver: NameResolver,
  at: { path: string; name: string; line: number; column: number },
): Promise<ResolvedDeclaration | null> {
  const occurrence = await resolver.occurrenceAt(at.path, at);
  if (occurrence?.binding === undefined) return null;
  if (occurrence.scope !== undefined) {
    const file = (await resolver.analysis(at.path, at.name))?.occurrences;
    return scopedTarget(at, occurrence, file);
  }
  const { binding } = occurrence;
  if (binding.kind === "member" && binding.receiver.kind === "declaration") {
    // An object literal's property is its type's member (the type it is annotated, cast or
    // returned as, or the parameter's it is passed to); another position is a member's own
    // declaration.
    const { literal, argument, type, nested, typedAt, parameter, signed, handled } =
      binding.receiver;
    const typed = argument !== undefined || type !== null || nested !== undefined || !!typedAt ||
      parameter?.index === VARIABLE_TYPE || signed !== undefined || handled !== undefined ||
      binding.receiver.intersected !== undefined;
    if (literal === true && typed) {
      const member = await resolver.literalMember(at.path, {
        member: at.name,
        receiver: binding.receiver,
        line: at.line,
      });
      if (member !== null) return member;
    }
    return {
      path: at.path,
      line: at.line,
      column: at.column,
      kind: binding.receiver.declares,
      container: binding.receiver.type,
      via: "file",
      member: true,
      ...await heritageOf(resolver, { path: at.path, name: at.name }, binding.receiver.heritage),
      ...(binding.receiver.parameter ? { parameter: binding.receiver.parameter } : {}),
      ...(binding.receiver.literal ? { literal: true } : {}),
      ...(binding.receiver.within ? { within: binding.receiver.within } : {}),
      ...(binding.receiver.private ? { private: binding.receiver.private } : {}),
      ...(binding.receiver.argument ? { argument: binding.receiver.argument } : {}),
      ...await overridden(resolver, { path: at.path, name: at.name }, binding.receiver),
      ...await platformTyped(resolver, { ...at, receiver: binding.receiver }),
    };
  }
  return await resolver.follow(at.path, { name: at.name, binding, line: at.line });
}

// For a key of an object literal of one of the platform's object types: that type.
async function platformTyped(
  resolver: NameResolver,
  at: { path: string; name: string; receiver: Receiver },
): Promise<{ platformType?: string }> {
  const platformType = await platformTypeOf(resolver, at);
  return platformType === undefined ? {} : { platformType };
}

// The receivers of a destructured name whose type `receiverMember` follows to a declaration.
const DESTRUCTURED_FROM = new Set<Receiver["kind"]>([
  "callback",
  "signature",
  "handler",
  "result",
  "value",
  "element",
  "property",
]);

/**
 * The declaration `definition` answers for the name at a position: as `resolveAt`, except that a
 * name declared by destructuring a value of a named type (`function Button({ onPress }: Props)`)
 * or a parameter of an anonymous object type (`({ id }: { id: number })`) and a property of an
 * object literal of a named type are defined where that type declares the property.
 */
export async function definitionAt(
  resolver: NameResolver,
  at: { path: string; name: string; line: number; column: number },
): Promise<ResolvedDeclaration | null> {
  const found = await typedDefinition(resolver, at);
  return found === null ? null : await discriminated(resolver, { ...at, found }) ?? found;
}

// For a member compared with a string (`value.state === 'hasError'`) or a key set to one
// (`{ state: 'hasData' }`), of a union whose arms declare it with string literal types: the
// member of the arm declaring that literal (a narrowed value is of that arm); null otherwise.
async function discriminated(
  resolver: NameResolver,
  at: { path: string; name: string; line: number; column: number; found: ResolvedDeclaration },
): Promise<ResolvedDeclaration | null> {
  const { found, name } = at;
  if (found.member !== true || found.container === null) return null;
  const text = (await resolver.text(at.path))?.split("\n")[at.line - 1] ?? "";
  const after = text.slice(at.column + name.length);
  const literal = /^\s*(?:===?|!==?|:)\s*(['"])([^'"\\]*)\1/.exec(after)?.[2];
  if (literal === undefined) return null;
  // The arms: those the member was found among, and the other members of the name declared for
  // the same type (an alias's anonymous object arms each declare it for the alias).
  const arms = [found, ...found.alternatives ?? []];
  for (const each of (await resolver.analysis(found.path, name))?.occurrences ?? []) {
    const receiver = each.binding?.kind === "member" ? each.binding.receiver : null;
    if (receiver?.kind !== "declaration" || receiver.literal || receiver.type !== found.container) {
      continue;
    }
    arms.push({ ...found, line: each.line, column: each.column, alternatives: undefined });
  }
  for (const arm of arms) {
    const line = (await resolver.text(arm.path))?.split("\n")[arm.line - 1] ?? "";
    const declared = line.slice(arm.column ?? 0).slice(name.length);
    const written = /^\s*\??\s*:\s*(['"])([^'"\\]*)\1/.exec(declared)?.[2];
    if (written === literal) return arm;
  }
  return null;
}

// `definitionAt` before a union's arm is chosen by a discriminant.
async function typedDefinition(
  resolver: NameResolver,
  at: { path: string; name: string; line: number; column: number },
): Promise<ResolvedDeclaration | null> {
  const occurrence = await resolver.occurrenceAt(at.path, at);
  const { binding, property } = occurrence ?? {};
  const declaresHere = (binding?.kind === "local" || binding?.kind === "file") &&
    binding.line === at.line && binding.column === at.column;
  if (declaresHere && property?.kind === "type") {
    const typed = { type: property.type, member: at.name, near: at.line };
    const member = await resolver.member(at.path, typed, 1);
    if (member !== null) return member;
  }
  // A name destructured from a value of evident type (a callback's parameter,
  // `hooks: { beforeRetry: [({ retryCount }) => ...] }`, a call's result): that type's member.
  if (declaresHere && property !== undefined && DESTRUCTURED_FROM.has(property.kind)) {
    const member = await resolver.receiverMember(at.path, { name: at.name, receiver: property }, 1);
    if (member !== null) return member;
  }
  // `({ id }: { id: number }) => ...`: the anonymous type's property.
  const parameter = property?.kind === "declaration" ? property.parameter : undefined;
  if (declaresHere && parameter !== undefined) {
    const { line, index } = parameter;
    const member = await resolver.parameterMember(at.path, { member: at.name, line, index });
    if (member !== null) return member;
  }
  // A property of an object literal of a named type (`const routes: Route[] = [{ path }]`) is
  // defined where the type declares it.
  const receiver = binding?.kind === "member" ? binding.receiver : property;
  if (receiver?.kind === "declaration" && receiver.literal === true && receiver.type !== null) {
    const typed = { type: receiver.type, member: at.name, near: at.line };
    const member = await resolver.member(at.path, typed, 1);
    if (member !== null) return member;
  }
  const constrained = await constraintMember(resolver, at, receiver);
  if (constrained !== null) return constrained;
  // An object a function returns as its anonymous return type: that type's property.
  const returned = receiver?.kind === "declaration" && receiver.literal === true
    ? receiver.parameter
    : undefined;
  if (returned?.index === RETURN_TYPE) {
    const { line, index } = returned;
    const member = await resolver.parameterMember(at.path, { member: at.name, line, index });
    if (member !== null) return member;
  }
  return await resolveAt(resolver, at);
}

// A key of an object passed to a parameter typed by a constrained type parameter (`open` of
// `defineHooks({ open(peer) {} })`, `<T extends Partial<Hooks>>(hooks: T)`): its own key for
// references, but defined, as the compiler's definitions have it, where the constraint declares it.
async function constraintMember(
  resolver: NameResolver,
  at: { path: string; name: string },
  receiver: Receiver | undefined,
): Promise<ResolvedDeclaration | null> {
  if (receiver?.kind !== "declaration" || receiver.literal !== true) return null;
  const { argument } = receiver;
  if (argument === undefined || argument.returned) return null;
  const callee = await resolver.calleeOf(at.path, argument);
  const constraint = callee?.constraints?.[argument.index] ?? null;
  if (callee === null || constraint === null) return null;
  return await resolver.member(callee.path, { type: constraint, member: at.name }, 1);
}

// Of the names a member's type extends or implements, those that lead to a declaration in the
// files as `path` sees them (`heritage`: a type the files do not declare, a global such as
// `Error` or a package's interface, says nothing of which values are the member's type, and a
// file naming it is no sign of the member), and those of them declaring the member too
// (`bases`: another class implementing one has its member of the same name in common).
async function heritageOf(
  resolver: NameResolver,
  at: { path: string; name: string },
  names: string[],
): Promise<{ heritage: string[]; bases: string[] }> {
  const declared = await Promise.all(
    names.map((name) => resolver.declarationOf(at.path, name, 1)),
  );
  const heritage = names.filter((_, index) => declared[index] !== null);
  const members = await Promise.all(
    heritage.map((type) => resolver.member(at.path, { type, member: at.name }, 1)),
  );
  return { heritage, bases: heritage.filter((_, index) => members[index] !== null) };
}

/**
 * Whether `occurrence` (in `path`, parsed with bindings) refers to
 * `target`: a member target by an occurrence whose receiver may be the
 * target's type (its own, or one extending or implementing it, or one not
 * evident), any other target by an occurrence that resolves to it.
 */
export async function refersTo(
  resolver: NameResolver,
  at: { path: string; name: string; occurrence: NameOccurrence },
  target: ResolvedDeclaration,
): Promise<boolean> {
  const { binding, property } = at.occurrence;
  if (binding === undefined) return false;
  if (target.scope !== undefined) return scopedRefersTo(at, { ...target, scope: target.scope });
  if (at.path === target.path && at.occurrence.line === target.line) return true;
  if (target.member === true && target.platformType !== undefined) {
    const receiver = binding.kind === "member" ? binding.receiver : property;
    const { path, name } = at;
    return receiver !== undefined &&
      await platformTypeOf(resolver, { path, name, receiver }) === target.platformType;
  }
  if (target.member === true) {
    const { within } = target;
    const { line } = at.occurrence;
    const made = await typeArgumentRefersTo(resolver, at, target);
    if (made !== null) return made;
    // An anonymous type written in a function body is not known outside it.
    if (within && at.path === target.path && (line < within.from || line > within.to)) {
      return false;
    }
    // A private member is referred to in its class only.
    const hidden = target.private;
    if (hidden && (at.path !== target.path || line < hidden.from || line > hidden.to)) return false;
    const receiver = binding.kind === "member" ? binding.receiver : property;
    if (receiver === undefined) return false;
    const { role } = at.occurrence;
    return await memberRefersTo(
      resolver,
      { path: at.path, name: at.name, line, receiver, role },
      target,
    );
  }
  if (binding.kind === "free") return false;
  if (binding.kind === "member" && binding.receiver.kind !== "module") return false;
  const found = await resolver.follow(at.path, { name: at.name, binding });
  if (found === null) return false;
  if (found.augmented !== undefined && found.augmented === target.augmented) return true;
  if (sameDeclaration(found, target)) return true;
  const exported = await namespaceExport(resolver, { path: at.path, name: at.name, found });
  return exported !== null && exported.path === target.path && exported.line === target.line;
}

// Whether a declaration found is the target: the same place (another name declared on the target's
// line, `options` of `function parse(source, options)`, is another declaration).
function sameDeclaration(found: ResolvedDeclaration, target: ResolvedDeclaration): boolean {
  if (found.path !== target.path || found.line !== target.line) return false;
  return found.column === null || target.column === null || found.column === target.column;
}

// For a name its file declares by destructuring a module's namespace (`const { prompt } = await
// import("./prompt")`, `const { prompt } = ns` of `import * as ns`): that module's export of the
// name, which the local name stands for; null for another declaration.
async function namespaceExport(
  resolver: NameResolver,
  at: { path: string; name: string; found: ResolvedDeclaration },
): Promise<ResolvedDeclaration | null> {
  const { found } = at;
  if (found.path !== at.path || found.member === true || found.column === null) return null;
  const { line, column } = found;
  const declared = await resolver.occurrenceAt(at.path, { name: at.name, line, column });
  const property = declared?.property;
  if (property?.kind !== "module") return null;
  const binding = { kind: "member" as const, receiver: property };
  return await resolver.follow(at.path, { name: at.name, binding });
}

// For a key of an object passed to a method of a value made by a call written with an anonymous
// type argument (`$store.set({ a: 1 })` of `let $store = map<{ a: number }>()`), or a member of a
// parameter of a callback passed to one (`$store.listen((value) => value.a)`): whether the
// target is that type's member (its file, its lines, not a literal's key); null for another
// occurrence.
async function typeArgumentRefersTo(
  resolver: NameResolver,
  at: { path: string; occurrence: NameOccurrence },
  target: ResolvedDeclaration,
): Promise<boolean | null> {
  const { binding, property } = at.occurrence;
  const receiver = binding?.kind === "member" ? binding.receiver : property;
  const range = receiver?.kind === "declaration" || receiver?.kind === "callback" ||
      receiver?.kind === "unknown" || receiver?.kind === "result"
    ? receiver.typedAt
    : undefined;
  if (range === undefined) return null;
  const inside = at.path === target.path && target.container === null &&
    target.literal !== true && target.line >= range.from && target.line <= range.to;
  // A value a call given an object made: that type's member, or as another receiver.
  if (receiver?.kind === "unknown" || receiver?.kind === "result") return inside ? true : null;
  const argument = receiver?.kind === "declaration" ? receiver.argument : undefined;
  if (!inside || argument?.on === undefined) return inside;
  return await takesTypeArgument(resolver, at.path, argument);
}

// Whether the method an object is passed to, where the files declare it, takes its value's type
// argument (`set(value: Value)`, `setState(partial: Partial<T>)`, a type of the files made of it,
// `addHooks(hooks: NestedHooks<T>)`) rather than the platform's map of its keys
// (`deprecateHooks(hooks: Partial<Record<keyof T, ...>>)`, whose keys the compiler does not relate
// to T's members); a method not evident is taken to.
async function takesTypeArgument(
  resolver: NameResolver,
  path: string,
  argument: { callee: string; index: number; on?: Receiver },
): Promise<boolean> {
  const callee = await resolver.calleeOf(path, argument);
  const types = callee?.parameters?.[argument.index];
  if (callee === null || types === undefined) return true;
  return [types ?? []].flat().some((type) => !KEY_MAPS.has(type));
}

// The platform's types mapping a type's keys to other values.
const KEY_MAPS = new Set(["Record"]);

// Whether a member occurrence whose receiver is `receiver` may be the member `target` (`role`: the
// occurrence's, when known).
async function memberRefersTo(
  resolver: NameResolver,
  at: { path: string; name: string; line: number; receiver: Receiver; role?: string },
  target: ResolvedDeclaration,
): Promise<boolean> {
  const { receiver } = at;
  const types = target.container === null ? [] : [target.container, ...target.heritage ?? []];
  if (
    (receiver.kind === "declaration" || receiver.kind === "this") &&
    receiver.heritage.some((type) => target.bases?.includes(type))
  ) {
    // Another class implementing a type that declares the member: its member is the same one.
    return true;
  }
  const literal = literalThisFits(at, target);
  if (literal !== null) return literal;
  const platform = await platformRefersTo(resolver, at, target);
  if (platform !== null) return platform;
  switch (receiver.kind) {
    case "unknown":
      return await unknownReceiverRefersTo(resolver, { ...at, receiver }, target);
    case "props": {
      // An attribute of a component declared in the target's file (its props' type is there),
      // or of the component whose first parameter the target's anonymous type annotates.
      const component = receiver.line === undefined
        ? await resolver.declarationOf(at.path, receiver.component, 1)
        : { path: at.path, line: receiver.line };
      if (component === null || component.path !== target.path) return false;
      if (target.container !== null) return true;
      return target.parameter?.line === component.line && target.parameter.index === 0;
    }
    case "declaration":
      return await declarationRefersTo(resolver, { ...at, receiver }, target);
    case "element":
    case "entry":
    case "result":
    case "value":
    case "property":
    case "callback":
    case "signature":
    case "handler":
      return await valueMemberRefersTo(resolver, { ...at, receiver }, target);
    case "type": {
      // The type as the file sees it: when it leads to a declaration of the member, that one (of
      // each arm of a union).
      const arms = [receiver.type, ...receiver.union ?? []];
      const found = receiver.union === undefined
        ? await resolver.member(at.path, { type: receiver.type, member: at.name }, 1)
        : await resolver.unionMember(at.path, { types: arms, member: at.name }, 0);
      if (found !== null) return isTargetMember(found, target);
      return receiverFits(receiver, types) &&
        await sameTypeName(resolver, { path: at.path, type: receiver.type }, target);
    }
    default:
      return receiverFits(receiver, types);
  }
}

// Whether the type name a receiver is annotated with, as its file sees it, is the one the target's
// file declares or sees (or leads to no declaration the files hold): another file's type of that
// name (`type RootState = ReturnType<typeof reducer>`, whose members are not written) is another
// type, not the target's.
async function sameTypeName(
  resolver: NameResolver,
  at: { path: string; type: string },
  target: ResolvedDeclaration,
): Promise<boolean> {
  if (at.path === target.path) return true;
  const seen = await resolver.declarationOf(at.path, at.type, 1);
  if (seen === null) return true;
  const meant = await resolver.declarationOf(target.path, at.type, 1);
  return meant === null || (seen.path === meant.path && seen.line === meant.line);
}

// An element of an imported array, what a call returns or a callback's parameter: the member its
// element, return or parameter type declares; one of no named type is a receiver of no evident
// type, but for a parameter of a function given to a package's function.
async function valueMemberRefersTo(
  resolver: NameResolver,
  at: { path: string; name: string; line: number; receiver: Receiver },
  target: ResolvedDeclaration,
): Promise<boolean> {
  const { receiver } = at;
  const found = await resolver.receiverMember(at.path, { name: at.name, receiver }, 0);
  if (found !== null) return isTargetMember(found, target);
  if (await packageCallback(resolver, at.path, receiver)) return false;
  if (await packageResult(resolver, at.path, receiver)) return false;
  // A callee given a function without a name whose parameter has an anonymous type may type its
  // other functions' parameters with it (`atomFamily((num: { index: number }) => ...,
  // (l, r) => l.index === r.index)`): a callback's parameter in that file may be of it.
  if (receiver.kind === "callback" && target.parameter?.anonymous && at.path === target.path) {
    return true;
  }
  const made = madeWith(receiver);
  const unknown: Receiver = made === undefined ? { kind: "unknown" } : { kind: "unknown", made };
  return await memberRefersTo(resolver, { ...at, receiver: unknown }, target);
}

// Whether a receiver is a parameter of a function passed, with no type written for it, to a
// function the file imports from a package that is not a file of the tree (`memo(({ text }) =>
// ...)` of `react`): its type is the package's, none the files declare.
async function packageCallback(
  resolver: NameResolver,
  path: string,
  receiver: Receiver,
): Promise<boolean> {
  if (receiver.kind !== "callback" || receiver.of !== undefined) return false;
  if (receiver.made !== undefined || receiver.typedAt !== undefined) return false;
  return await packageImport(resolver, path, receiver.module ?? receiver.callee);
}

// Whether a receiver is what a call of a function the files declare gives, the function's return
// type being one its file imports from a package that is not a file of the tree
// (`toFarmPlugin(plugin): JsPlugin` of `@farmfe/core`): its members are the package's.
async function packageResult(
  resolver: NameResolver,
  path: string,
  receiver: Receiver,
): Promise<boolean> {
  if (receiver.kind !== "result" || receiver.on !== undefined || receiver.element === true) {
    return false;
  }
  if (receiver.made !== undefined || receiver.typedAt !== undefined) return false;
  const fn = await resolver.declarationOf(path, receiver.of, 1);
  return fn?.returns !== undefined && await packageImport(resolver, fn.path, fn.returns);
}

// Whether `path` imports `name` from a package that is not a file of the tree.
async function packageImport(
  resolver: NameResolver,
  path: string,
  name: string,
): Promise<boolean> {
  const occurrences = (await resolver.analysis(path, name))?.occurrences ?? [];
  const imported = occurrences.find((occurrence) => occurrence.binding?.kind === "import");
  if (imported?.binding?.kind !== "import") return false;
  const specifier = imported.binding.module;
  if (specifier.startsWith(".") || specifier.startsWith("/")) return false;
  return await resolver.module(path, specifier) === null;
}

// For `this` in an untyped object literal's method: whether the target is a member that literal
// declares; null for another receiver.
function literalThisFits(
  at: { path: string; receiver: Receiver },
  target: ResolvedDeclaration,
): boolean | null {
  const { receiver } = at;
  if (receiver.kind !== "this" || receiver.literal === undefined) return null;
  const { from, to } = receiver.literal;
  return at.path === target.path && target.literal === true && target.line >= from &&
    target.line <= to;
}

// The lines of the object literal a variable declared at `at` is set to (`actions = { ... }`),
// by its braces (a brace in a string or comment is taken for one); null when it is set to another
// value.
function literalLines(
  text: string,
  at: { line: number; column: number | null },
): { from: number; to: number } | null {
  const lines = text.split("\n");
  const first = lines[at.line - 1]?.slice(at.column ?? 0) ?? "";
  const opening = /^[A-Za-z0-9_$]+\s*=\s*\{/.exec(first);
  if (opening === null) return null;
  let depth = 0;
  let rest = first.slice(opening[0].length - 1);
  for (let line = at.line; line <= lines.length; line++) {
    for (const character of rest) {
      if (character === "{") depth++;
      else if (character === "}" && --depth === 0) return { from: at.line, to: line };
    }
    rest = lines[line] ?? "";
  }
  return null;
}

// The platform's collections a type of the files may extend or be made of, and their members: a
// member of such a type of one of these names overrides the collection's, which the compiler's
// references relate to it, so every use of the collection's member is one of the override.
const COLLECTION_MEMBERS: Record<string, Set<string>> = {
  Map: new Set([
    "get",
    "set",
    "has",
    "delete",
    "clear",
    "size",
    "forEach",
    "keys",
    "values",
    "entries",
  ]),
  Set: new Set([
    ...["add", "has", "delete", "clear", "size", "forEach", "keys", "values", "entries"],
    ...["union", "intersection", "difference", "symmetricDifference"],
    ...["isSubsetOf", "isSupersetOf", "isDisjointFrom"],
  ]),
};

// For a member declared in a class, an object type or a typed object literal: the platform's
// collection it overrides (`class DraftMap extends Map`, an object of
// `type Internal<K, V> = Map<K, V> & { epoch: number }`), if any.
async function overridden(
  resolver: NameResolver,
  at: { path: string; name: string },
  receiver: Extract<Receiver, { kind: "declaration" }>,
): Promise<{ platform?: string }> {
  const platform = await collectionOf(resolver, at, receiver);
  return platform === undefined ? {} : { platform };
}

async function collectionOf(
  resolver: NameResolver,
  at: { path: string; name: string },
  receiver: { type: string | null; heritage: string[] },
): Promise<string | undefined> {
  const fits = (name: string) => COLLECTION_MEMBERS[name]?.has(at.name) === true;
  const extended = receiver.heritage.find(fits);
  if (extended !== undefined || receiver.type === null) return extended;
  if (fits(receiver.type)) return receiver.type;
  const type = await resolver.declarationOf(at.path, receiver.type, 1);
  return type?.parts?.find(fits);
}

// For a target overriding a platform collection's member: an occurrence on a value of that
// collection (constructed or annotated), of a type extending or made of it, or of no evident type
// that is evidently one (below) is the collection's member, hence the target's; null for another
// receiver (a type the files declare: its own member decides; another of no evident type: the
// rule of such receivers).
async function platformRefersTo(
  resolver: NameResolver,
  at: { path: string; name: string; receiver: Receiver; role?: string },
  target: ResolvedDeclaration,
): Promise<boolean | null> {
  const { platform } = target;
  const { receiver } = at;
  if (platform === undefined) return null;
  if (receiver.kind === "unknown") {
    const evident = receiver.global !== true && await collectionCall(resolver, at, platform);
    return evident ? true : null;
  }
  if (receiver.kind === "type") {
    // `new DraftMap().set(...)`: a class extending the collection declares the member.
    if (receiver.type === platform) return true;
    const found = await resolver.member(at.path, { type: receiver.type, member: at.name }, 1);
    if (found?.implemented?.includes(platform)) return true;
  }
  if (receiver.kind !== "declaration" && receiver.kind !== "this" && receiver.kind !== "type") {
    return null;
  }
  const own = await collectionOf(resolver, at, { heritage: [], ...receiver });
  return own === platform ? true : null;
}

// Whether a member occurrence on a value of no evident type is evidently the collection
// `platform`'s: a method called (not a property of that name read: `cloned.set.add(4)`), and one
// only that collection has (`set` of a `Map`, `add` of a `Set`), or one it shares (`has`,
// `delete`, `size`) in a file naming that collection and no other that has the member.
async function collectionCall(
  resolver: NameResolver,
  at: { path: string; name: string; role?: string },
  platform: string,
): Promise<boolean> {
  if (at.role !== undefined && at.role !== "call" && at.name !== "size") return false;
  const others = Object.keys(COLLECTION_MEMBERS).filter((other) =>
    other !== platform && COLLECTION_MEMBERS[other].has(at.name)
  );
  if (others.length === 0) return true;
  if (!(await resolver.mentions(at.path, platform))) return false;
  const named = await Promise.all(others.map((other) => resolver.mentions(at.path, other)));
  return !named.includes(true);
}

// Members of the platform's arrays, maps, sets, promises and strings: a receiver of no evident
// type calling one is as likely one of those as the target's type, as for a name other types of
// the files declare (it is the target's where the file names the target's type).
const PLATFORM_MEMBERS = new Set([
  "push",
  "pop",
  "shift",
  "unshift",
  "splice",
  "slice",
  "concat",
  "indexOf",
  "includes",
  "join",
  "map",
  "filter",
  "forEach",
  "reduce",
  "find",
  "findIndex",
  "some",
  "every",
  "flat",
  "flatMap",
  "sort",
  "reverse",
  "length",
  "keys",
  "values",
  "entries",
  "get",
  "set",
  "has",
  "delete",
  "clear",
  "add",
  "size",
  "then",
  "catch",
  "finally",
  "split",
  "trim",
  "replace",
  "startsWith",
  "endsWith",
  "toString",
]);

// Whether a member occurrence whose receiver is of no evident type may be the member `target`.
async function unknownReceiverRefersTo(
  resolver: NameResolver,
  at: { path: string; name: string; line: number; receiver: Receiver & { kind: "unknown" } },
  target: ResolvedDeclaration,
): Promise<boolean> {
  const { receiver } = at;
  const own = at.path === target.path;
  const types = target.container === null ? [] : [target.container, ...target.heritage ?? []];
  // A global the file does not declare (`process.env`, `window.name`) is of no type the
  // files declare. Another receiver of no evident type: the target's when no other type has
  // a member of that name, else where the file names its type (or one it extends); an
  // anonymous type's only in its own file.
  if (receiver.global === true) return false;
  // A variable set to an object literal without an annotation (`let ref = { current: 0 }`) holds
  // a value of that literal's own type: its members are the literal's keys, no other type's.
  const { object } = receiver;
  if (object) return own && target.line >= object.from && target.line <= object.to;
  // A value a call the file writes made (`const useStore = create<State>()(...)`), whose type no
  // declaration names: of a type that call names, not of another (`create(combine({ count }))`
  // infers a type of its own).
  const { made } = receiver;
  if (made !== undefined && types.length > 0 && !types.some((type) => made.includes(type))) {
    return false;
  }
  // A parameter's anonymous type has values in its function only (or passed to it, evident).
  const { line = 0, to } = target.parameter ?? {};
  if (own && to !== undefined) return at.line >= line && at.line <= to;
  if (own) return true;
  if (target.container === null) return false;
  if (target.shared !== true && !PLATFORM_MEMBERS.has(at.name)) return true;
  for (const type of types) {
    if (!await namesType(resolver, at.path, { type, from: target.path })) continue;
    // A base type is evidence only where it declares the member: a value of it has no other.
    if (type === target.container) return true;
    if (await resolver.member(target.path, { type, member: at.name }, 1) !== null) return true;
  }
  return false;
}

/**
 * The type names of the call that made a receiver's value: its own, or those of the value it is
 * reached through (`useStore.getState().count`); undefined when no call the file writes made it.
 */
export function madeWith(receiver: Receiver): string[] | undefined {
  if ((receiver.kind === "result" || receiver.kind === "unknown") && receiver.made) {
    return receiver.made;
  }
  if (receiver.kind === "callback" && receiver.made) return receiver.made;
  if (receiver.kind === "result" || receiver.kind === "property") {
    return receiver.on === undefined ? undefined : madeWith(receiver.on);
  }
  return receiver.kind === "callback" && receiver.of !== undefined
    ? madeWith(receiver.of)
    : undefined;
}

// Whether `path` names the type `type` as `from` (the target's file) sees it: the word, unless
// the file's own declaration or import of that name leads elsewhere (another type of that name),
// or the file names it only to import it, construct it (`new T()`) or test a value
// (`x instanceof T`): those values are evident, the others are not of it.
async function namesType(
  resolver: NameResolver,
  path: string,
  at: { type: string; from: string },
): Promise<boolean> {
  if (!(await resolver.mentions(path, at.type))) return false;
  if (!(await namesBeyondUse(resolver, path, at.type))) return false;
  const seen = await resolver.declarationOf(path, at.type, 1);
  if (seen === null) return true;
  const meant = await resolver.declarationOf(at.from, at.type, 1);
  return meant === null || (seen.path === meant.path && seen.line === meant.line);
}

// Whether `path` names `type` other than in an import, a `new` or an `instanceof` test (a file
// not parsed: whether it holds the word).
async function namesBeyondUse(
  resolver: NameResolver,
  path: string,
  type: string,
): Promise<boolean> {
  const occurrences = (await resolver.analysis(path, type))?.occurrences ?? [];
  if (occurrences.length === 0) return true;
  const lines = (await resolver.text(path))?.split("\n") ?? [];
  return occurrences.some(({ role, line, column }) => {
    if (role === "import" || role === "call") return false;
    const before = lines[line - 1]?.slice(0, column).trimEnd() ?? "";
    return role !== "read" || !/\binstanceof$/.test(before);
  });
}

// Whether the member a receiver's type leads to is the target: its own member, one of a type the
// target's extends, another implementation of a type declaring the target's member
// (`Router.add` of `PatternRouter` and of `SmartRouter`), or the member of a class implementing or
// extending the target's type (`store.get()` of an `InMemorySecretStore` for `SecretStore.get`).
function isTargetMember(found: ResolvedDeclaration, target: ResolvedDeclaration): boolean {
  return [found, ...found.alternatives ?? []].some((each) => isOneTargetMember(each, target));
}

function isOneTargetMember(found: ResolvedDeclaration, target: ResolvedDeclaration): boolean {
  // Two anonymous types of one file are one only where they are the same declaration.
  const same = found.container !== null || found.line === target.line;
  return (found.path === target.path && found.container === target.container && same) ||
    (target.heritage ?? []).includes(found.container ?? "") ||
    (found.implemented ?? []).some((type) =>
      target.bases?.includes(type) || (target.member === true && type === target.container)
    );
}

// Whether a member declared at the occurrence (in a class, an object type or an object literal)
// may be the member `target`.
async function declarationRefersTo(
  resolver: NameResolver,
  at: { path: string; name: string; receiver: Extract<Receiver, { kind: "declaration" }> },
  target: ResolvedDeclaration,
): Promise<boolean> {
  const { receiver } = at;
  const own = at.path === target.path;
  // An object set without an annotation to a variable is of its own type: a key of it is no
  // other type's member (another such object's key is the rule's below).
  if (receiver.untyped === true && target.literal !== true) return false;
  // An object passed to a function is of its parameter's type; another anonymous object
  // (type) is the target's only where the target's is anonymous too; another file's type
  // of the target's type name is another type.
  // Another object literal of a named type: its property is its own, not the target
  // literal's (untyped literals keep the rule of anonymous objects below).
  if (receiver.literal === true && target.literal === true && target.container !== null) {
    return false;
  }
  const declared = receiver.argument === undefined
    ? null
    : await resolver.declaredParameterMember(at.path, { ...receiver.argument, member: at.name });
  if (declared !== null) return isTargetMember(declared, target);
  const typed = await argumentTyped(resolver, at.path, receiver.argument);
  if (typed !== undefined) {
    // An object passed to a call written with a type argument that declares the key
    // (`atom<Item>({ text })`): that type's member.
    const found = await resolver.member(at.path, { type: typed, member: at.name }, 1);
    if (found !== null) return isTargetMember(found, target);
  }
  const nested = receiver.nested === undefined && receiver.signed === undefined &&
      receiver.handled === undefined
    ? null
    : await nestedFits(resolver, at, target);
  if (nested !== null) return nested;
  const passed = await passedObjectFits(resolver, at, target);
  if (passed !== null) return passed;
  // An anonymous object type declaring the name is another type than an anonymous target
  // type (an object literal may be of the target's type).
  const { parameter } = target;
  const returned = await returnedLiteralFits(resolver, at, target);
  if (returned !== null) return returned;
  if (receiver.type === null && receiver.parameter !== undefined && parameter !== undefined) {
    // A name destructured from a parameter of an anonymous type: that parameter's type only.
    return own && receiver.parameter.line === parameter.line &&
      receiver.parameter.index === parameter.index;
  }
  if (receiver.type === null) {
    // A parameter's anonymous type is not that of an object literal passed nowhere (`return {
    // port }`) or to a callee not evident (`dispatch({ type })`: one passed to the function fits
    // above); two literals of no evident type are two types (`mutate(data, { optimisticData })`).
    // A function without a name may give its parameter's type to what its callee returns
    // (`family((num: { index: number }) => ...)` makes `byIndex({ index })`). A property's
    // anonymous type (`from: { transform: string }`) is any literal's of the file that may be it.
    const open = parameter === undefined || parameter.anonymous === true ||
      parameter.index === PROPERTY_TYPE || parameter.index === VARIABLE_TYPE;
    return own && target.container === null &&
      (receiver.literal === true ? open && target.literal !== true : target.literal === true);
  }
  return await namedDeclarationFits(resolver, { ...at, type: receiver.type }, target);
}

// For a key of an object returned as a return type's intersection (`return { cwd }` of
// `Pick<Options, "cwd"> & { manager: Manager }`): whether the member it is (the anonymous part's,
// else a named part's) is the target; null for another key, or one no part declares.
async function returnedLiteralFits(
  resolver: NameResolver,
  at: { path: string; name: string; receiver: Extract<Receiver, { kind: "declaration" }> },
  target: ResolvedDeclaration,
): Promise<boolean | null> {
  const { parameter, intersected, type } = at.receiver;
  if (type !== null || intersected === undefined || parameter === undefined) return null;
  const found = await resolver.returnedLiteralMember(at.path, {
    member: at.name,
    parameter,
    intersected,
  });
  return found === null ? null : isTargetMember(found, target);
}

// The type argument an object passed to a call written with one is of (`atom<Item>({ text })`):
// undefined when the callee's parameter is of a type the files declare, not a type parameter
// (`load<T>(options: LoadOptions<T>)`), the type argument then being what that type is made with.
async function argumentTyped(
  resolver: NameResolver,
  path: string,
  argument: Extract<Receiver, { kind: "declaration" }>["argument"],
): Promise<string | undefined> {
  if (argument?.typed === undefined) return undefined;
  const callee = await resolver.calleeOf(path, argument);
  const type = callee?.parameters?.[argument.index] ?? null;
  if (callee === null || type === null) return argument.typed;
  for (const each of [type].flat()) {
    // A type parameter (`atom<Value>(initial: Value)`) is declared in the callee's scope.
    const declared = await resolver.declarationOf(callee.path, each, 1);
    if (declared !== null && declared.via !== "scope") return undefined;
  }
  return argument.typed;
}

// For a key of an object passed to a call: whether it is the member `target` (the callee's
// parameter's type, or the one type of a callee the files do not type); null when the call
// does not say.
async function passedObjectFits(
  resolver: NameResolver,
  at: { path: string; name: string; receiver: Extract<Receiver, { kind: "declaration" }> },
  target: ResolvedDeclaration,
): Promise<boolean | null> {
  const { argument } = at.receiver;
  if (argument === undefined) return null;
  if (argument.returned) {
    // Returned by a function passed: of the type the callee says it returns, when evident.
    const types = await resolver.returnedTypes(at.path, argument);
    for (const each of types) {
      const found = await resolver.member(each.path, { ...each, member: at.name }, 1);
      if (found !== null && isTargetMember(found, target)) return true;
    }
    return types.length > 0 ? false : null;
  }
  const fits = await argumentFits(resolver, { path: at.path, name: at.name, ...argument }, target);
  if (fits !== null) return fits;
  // Objects passed to a callee the files do not type (`new ReadableStream({ start })`):
  // of its parameter's one type wherever that callee and argument are the same, but for a
  // package's function that is not a file of the tree (`computed({ get })` of `vue`), whose
  // parameter's type the files do not hold: nothing then relates one object's keys to another's.
  const { callee, index, on } = argument;
  if (
    on === undefined && target.argument?.on === undefined && !target.argument?.returned &&
    target.argument?.callee === callee && target.argument.index === index &&
    !(await packageImport(resolver, at.path, callee))
  ) {
    return true;
  }
  return null;
}

// Whether a member declared in a class, an object type or an object literal of the named type
// `type` may be the member `target`.
async function namedDeclarationFits(
  resolver: NameResolver,
  at: {
    path: string;
    name: string;
    type: string;
    receiver: Extract<Receiver, { kind: "declaration" }>;
  },
  target: ResolvedDeclaration,
): Promise<boolean> {
  const { receiver, type } = at;
  const own = at.path === target.path;
  const types = target.container === null ? [] : [target.container, ...target.heritage ?? []];
  const intersected = await intersectedFits(resolver, at, target);
  if (intersected !== null) return intersected;
  if (receiver.literal === true && type === target.container) {
    // A value of a type of the target's type name: the target's when that name leads there.
    const declared = await resolver.declarationOf(at.path, type, 1);
    return declared === null || declared.path === target.path;
  }
  if (!own && type === target.container) return false;
  if (receiver.literal === true) {
    // A literal of another named type: the member that type has, its own or one of its parts'
    // (`{ [K in keyof Options]-?: true }` has Options's members).
    const found = await resolver.member(at.path, { type, member: at.name }, 1);
    if (found !== null) return isTargetMember(found, target);
  }
  return receiverFits(receiver, types);
}

// For a key of an object literal set to a variable annotated with an intersection of named types
// (`const mixed: BuildContext & Context = { warn() {} }`): whether the member of the first part
// declaring it is the target; null for another literal, or when no part declares it.
async function intersectedFits(
  resolver: NameResolver,
  at: { path: string; name: string; type: string; receiver: { intersected?: string[] } },
  target: ResolvedDeclaration,
): Promise<boolean | null> {
  const { intersected } = at.receiver;
  if (intersected === undefined) return null;
  const types = [at.type, ...intersected];
  const found = await resolver.firstMember(at.path, { types, name: at.name }, 0);
  return found === null ? null : isTargetMember(found, target);
}

// Whether a property of an object literal that is another literal's property's value
// (`{ retry: { limit } }`) is the target: a member of the type that property is annotated with;
// null when no type is evident.
async function nestedFits(
  resolver: NameResolver,
  at: { path: string; name: string; receiver: Extract<Receiver, { kind: "declaration" }> },
  target: ResolvedDeclaration,
): Promise<boolean | null> {
  const types = await resolver.literalTypes(at.path, at.receiver, 0);
  for (const each of types) {
    const found = await resolver.member(each.path, { ...each, member: at.name }, 1);
    if (found !== null && isTargetMember(found, target)) return true;
  }
  if (types.length > 0 || at.receiver.nested === undefined) return types.length > 0 ? false : null;
  // `{ extend: { extendKey } }` of `extend?: { extendKey?: string }`: that anonymous type's.
  const holders = await resolver.nestedHolders(at.path, at.receiver.nested, 0);
  for (const holder of holders) {
    const found = await resolver.propertyTypeMember(holder, at.name);
    if (found !== null) return isTargetMember(found, target);
  }
  return null;
}

// Whether an object passed as argument `index` to `callee` is of the target's type: the callee's
// parameter's named type, or the object type annotating it; null when the callee is not evident.
async function argumentFits(
  resolver: NameResolver,
  at: { path: string; name: string; callee: string; index: number; module?: string },
  target: ResolvedDeclaration,
): Promise<boolean | null> {
  const callee = await resolver.calleeOf(at.path, at);
  if (callee === null || callee.parameters === undefined) return null;
  const type = callee.parameters[at.index] ?? null;
  // A target of no named type may be the anonymous part of a parameter's type
  // (`Partial<Options & { fancy: boolean }>`), below.
  if (type !== null && target.container !== null) {
    for (const each of [type].flat()) {
      if (each === target.container) {
        const declared = await resolver.declarationOf(callee.path, each, 1);
        if (declared === null || declared.path === target.path) return true;
      } else if ((target.heritage ?? []).includes(each)) {
        return true;
      } else {
        // A type made of the target's (`{ alg: string } & VerifyOptions`), or a generic alias
        // standing for it (`Resolvable<Plugin>`).
        const written = { type: each, member: at.name, arguments: callee.typeArguments };
        const found = await resolver.member(callee.path, written, 1);
        if (found !== null && isTargetMember(found, target)) return true;
      }
    }
    return false;
  }
  const { parameter } = target;
  return parameter !== undefined && callee.path === target.path &&
    callee.line === parameter.line && at.index === parameter.index;
}

/** Whether `text` holds `word` (any characters, taken literally) with no name character around. */
export function holdsWord(text: string, word: string): boolean {
  if (word.length === 0) return false;
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
    const before = at === 0 ? "" : text[at - 1];
    const after = text[at + word.length] ?? "";
    if (!NAME_CHARACTER.test(before) && !NAME_CHARACTER.test(after)) return true;
  }
  return false;
}

const NAME_CHARACTER = /[A-Za-z0-9_$]/;

// Whether a receiver is of the target's type: `types` is its name, then the names it extends.
function receiverFits(receiver: Receiver, types: string[]): boolean {
  switch (receiver.kind) {
    case "declaration":
    case "this":
      return receiver.type === null ? receiver.kind === "this" : types.includes(receiver.type) ||
        (types.length > 0 && receiver.heritage.includes(types[0]));
    case "type":
      return types.includes(receiver.type);
    case "module":
    case "props":
      return false;
    default:
      return true;
  }
}

function declared(
  path: string,
  binding: Declared,
  via: ResolvedDeclaration["via"],
): ResolvedDeclaration {
  return {
    path,
    line: binding.line,
    column: binding.column,
    kind: binding.declares,
    container: binding.container,
    via,
    ...(binding.parameters ? { parameters: binding.parameters } : {}),
    ...(binding.callbacks ? { callbacks: binding.callbacks } : {}),
    ...(binding.constraints ? { constraints: binding.constraints } : {}),
    ...(binding.parameterTypes ? { parameterTypes: binding.parameterTypes } : {}),
    ...(binding.parts ? { parts: binding.parts } : {}),
    ...(binding.partArguments ? { partArguments: binding.partArguments } : {}),
    ...(binding.indexValues ? { indexValues: binding.indexValues } : {}),
    ...(binding.typeParameters ? { typeParameters: binding.typeParameters } : {}),
    ...(binding.typeArguments ? { typeArguments: binding.typeArguments } : {}),
    ...(binding.elementType ? { elementType: binding.elementType } : {}),
    ...(binding.returns ? { returns: binding.returns } : {}),
    ...(binding.valueType ? { valueType: binding.valueType } : {}),
    ...(binding.valueArguments ? { valueArguments: binding.valueArguments } : {}),
    ...(binding.setBy ? { setBy: binding.setBy } : {}),
    ...(binding.returnsElement ? { returnsElement: binding.returnsElement } : {}),
    ...(binding.returnsParts ? { returnsParts: binding.returnsParts } : {}),
    ...(binding.returnedBy ? { returnedBy: binding.returnedBy } : {}),
    ...(binding.constructs ? { constructs: binding.constructs } : {}),
  };
}

// Of the occurrences of a name, one whose binding is a local whose scope holds `line` (the
// innermost such scope's), or undefined: a block declaring the name hides any outer declaration.
function innermostLocal(
  occurrences: NameOccurrence[],
  line: number,
): NameOccurrence | undefined {
  let found: NameOccurrence | undefined;
  let from = 0;
  for (const occurrence of occurrences) {
    const { binding } = occurrence;
    const block = binding?.kind === "local" ? binding.block : undefined;
    if (block === undefined || line < block.from || line > block.to || block.from < from) continue;
    [found, from] = [occurrence, block.from];
  }
  return found;
}

// The occurrences of a member name in a type's file, its own members first: those of a type
// declared in a block are the type's when it is the one declared there (a test's blocks each
// declaring a `State`), then those of a type declared elsewhere, then the others.
function ownMembers(
  occurrences: NameOccurrence[],
  type: ResolvedDeclaration,
): NameOccurrence[] {
  const within = (occurrence: NameOccurrence) => {
    const receiver = occurrence.binding?.kind === "member" ? occurrence.binding.receiver : null;
    return receiver?.kind === "declaration" ? receiver.within : undefined;
  };
  const holds = (occurrence: NameOccurrence) => {
    const lines = within(occurrence);
    return lines !== undefined && type.line >= lines.from && type.line <= lines.to;
  };
  const outside = (occurrence: NameOccurrence) => within(occurrence) === undefined;
  return [
    ...occurrences.filter(holds),
    ...occurrences.filter(outside),
    ...occurrences.filter((occurrence) => !holds(occurrence) && !outside(occurrence)),
  ];
}
