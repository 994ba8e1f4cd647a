/**
 * Search-based references and definitions for the languages whose scopes
 * `symbols/scope_bindings.ts` analyzes (C and C++, Go, Python, Rust, Java,
 * C#, PHP, Ruby): the occurrence at the position gives the target (a local,
 * a declaration of the file and how far it is seen, or a name the file does
 * not declare: a global, an imported name, a member), and an occurrence
 * elsewhere refers to it when its own binding may: a local only by the
 * occurrences bound to that declaration; a name private to its file (C
 * `static`, a `.c` file's macro or enum constant, a Rust item without
 * `pub`, a private member) only in that file; a Go package's lower-case
 * name or a Java package-private one only in its package's folder; any
 * other name in every file of the language, except where that file binds
 * it to a local or to its own declaration (C: its own `static`; Go, Python,
 * Rust, Java, PHP: its own package's or module's name), where it is a
 * member access (for a name that is no member), where it is imported or
 * qualified by a module that is not the target's file or folder, and
 * (Go, Java, PHP) where it is free in another package's folder. A member
 * (`x.f`, `p->f`) is any member access spelling it, but another file's own
 * private member of the name: receivers other than the type's own value
 * (`this`, `self`, `$this`) are not resolved.
 *
 * @module
 */

import type { NameOccurrence } from "../symbols/symbol_extractor.ts";
import type { ScopeInfo } from "../symbols/scope_bindings.ts";
import { grammarLanguageOf } from "../symbols/languages.ts";

/** What a target of an analyzed language is, beside its place. */
export interface ScopedTarget {
  /** The language family its references are looked for in (`c` holds C++). */
  family: string;
  space: ScopeInfo["space"];
  /** Where it is seen: a local's declaration, its file, its folder's package, everywhere. */
  reach: "local" | "file" | "package" | "global";
  /** Whether the place is its declaration (false: the position itself, a use of a name declared elsewhere). */
  declared: boolean;
  /** For a member of a language whose methods and fields are apart (Java, PHP): a method. */
  call?: boolean;
}

/** Where a scoped target is, and what it is. */
export interface ScopedPlace {
  path: string;
  line: number;
  column: number | null;
  scope: ScopedTarget;
}

/** The place and kind of a scoped target (the shape of `ResolvedDeclaration`). */
export interface ScopedDeclaration {
  path: string;
  line: number;
  column: number;
  kind: string;
  container: string | null;
  via: "scope" | "file" | "import" | "member";
  member?: boolean;
  scope: ScopedTarget;
}

const FAMILIES: Record<string, string> = {
  c: "c",
  cpp: "c",
  go: "go",
  python: "python",
  rust: "rust",
  java: "java",
  csharp: "csharp",
  php: "php",
  ruby: "ruby",
};

// The languages whose methods and fields of one name are two members (C# calls a field holding
// a delegate; Ruby's fields are reached through methods).
const CALLS_APART = new Set(["java", "php"]);

// Where a name no file declares may be declared (a use elsewhere may refer to it): in any file
// (C links files, C# `using` imports whole namespaces, Ruby loads every file into one space),
// in a file of its folder (Go, Java, PHP: a package or a PSR-4 namespace is a folder), or only
// where an import brings it (Python, Rust).
const FREE_SEEN: Record<string, "any" | "folder"> = {
  c: "any",
  csharp: "any",
  ruby: "any",
  go: "folder",
  java: "folder",
  php: "folder",
};

/** The language family of a path whose scopes are analyzed, or null. */
export function scopeFamilyOf(path: string): string | null {
  const language = grammarLanguageOf(path);
  return language === null ? null : FAMILIES[language] ?? null;
}

/**
 * The target of the occurrence of a name at `at` (its own place), or null
 * when the occurrence has no scope analysis (another language).
 */
export function scopedTarget(
  at: { path: string; line: number; column: number },
  occurrence: NameOccurrence,
  file: readonly NameOccurrence[] = [],
): ScopedDeclaration | null {
  const { binding, scope } = occurrence;
  const family = scopeFamilyOf(at.path);
  if (binding === undefined || scope === undefined || family === null) return null;
  const target = (reach: ScopedTarget["reach"], declared: boolean): ScopedTarget => ({
    family,
    space: scope.space,
    reach,
    declared,
  });
  if (binding.kind === "local" || binding.kind === "file") {
    const reach = binding.kind === "local" ? "local" : scope.reach ?? "global";
    const { line, column, declares: kind } = binding;
    const via = binding.kind === "local" ? "scope" : "file";
    return { path: at.path, line, column, kind, container: null, via, scope: target(reach, true) };
  }
  const place = { path: at.path, line: at.line, column: at.column, container: null };
  if (binding.kind === "member" && scope.space === "member") {
    // `self.f`: the member its type declares (found by the scope analysis), or the one member
    // of that name its file declares.
    const self = scope.self === true && occurrence.role !== "definition";
    const own = self ? scope.declaration ?? ownMember(file) : null;
    const declared = occurrence.role === "definition" || own !== null;
    const { line, column } = own ?? at;
    const reach = scope.reach ?? "global";
    const member = target(reach, declared);
    if (scope.call === true) member.call = true;
    return {
      ...place,
      line,
      column,
      kind: "member",
      via: "member",
      member: true,
      scope: member,
    };
  }
  // Not declared in the file: a Go name in lower case is its package's (or a builtin).
  const name = binding.kind === "import" ? binding.imported : "";
  const reach = family === "go" && binding.kind === "free" && !/^[A-Z]/.test(name)
    ? "package"
    : "global";
  return { ...place, kind: binding.kind, via: "import", scope: target(reach, false) };
}

// The one member declaration of a file's occurrences of a name, or null (none, or several).
function ownMember(file: readonly NameOccurrence[]): NameOccurrence | null {
  const declared = file.filter((occurrence) =>
    occurrence.role === "definition" && occurrence.scope?.space === "member"
  );
  return declared.length === 1 ? declared[0] : null;
}

/**
 * Whether a file at `path` may hold references to a scoped target (at
 * `target.path`): a file of its language family and, for a local or a name
 * private to its file, that file only, for a name of a Go package, its
 * folder only (as `scopedRefersTo` decides), so other files need no parse.
 */
export function mayHoldScoped(
  target: { path: string; scope: ScopedTarget },
  path: string,
): boolean {
  if (scopeFamilyOf(path) !== target.scope.family) return false;
  switch (target.scope.reach) {
    case "local":
    case "file":
      return path === target.path;
    case "package":
      return folderOf(path) === folderOf(target.path);
  }
  return true;
}

/** Whether `occurrence` (in `path`) refers to the scoped target `target`. */
export function scopedRefersTo(
  at: { path: string; occurrence: NameOccurrence },
  target: ScopedPlace,
): boolean {
  const { path, occurrence } = at;
  const { binding, scope } = occurrence;
  if (binding === undefined || scope === undefined) return false;
  const own = path === target.path;
  if (own && occurrence.line === target.line && occurrence.column === target.column) return true;
  if (scope.space !== target.scope.space) return false;
  const family = target.scope.family;
  // A member is met through member accesses; another name is not.
  const member = target.scope.space === "member";
  // Java and PHP keep a class's methods and fields apart: `x.f()` is no field `f`.
  if (member && CALLS_APART.has(family) && (scope.call === true) !== (target.scope.call === true)) {
    return false;
  }
  const sameFolder = packageOf(family, path) === packageOf(family, target.path);
  switch (target.scope.reach) {
    case "local":
      return own && binding.kind === "local" && binding.line === target.line &&
        binding.column === target.column;
    case "file":
      return own && binding.kind !== "local" && (member || binding.kind !== "member");
    case "package":
      return sameFolder && binding.kind !== "local" && (member || binding.kind !== "member");
  }
  if (member) {
    // Not a member its own file's class declares private (or its package's, elsewhere).
    const hidden = (scope.reach === "file" && !own) || (scope.reach === "package" && !sameFolder);
    return binding.kind === "member" && !hidden;
  }
  return globalRefersTo({ path, binding, scope }, target);
}

// Whether an occurrence refers to a name seen everywhere.
function globalRefersTo(
  at: { path: string; binding: NonNullable<NameOccurrence["binding"]>; scope: ScopeInfo },
  target: ScopedPlace,
): boolean {
  const { binding, scope, path } = at;
  const family = target.scope.family;
  // A name not declared in the origin's file: its place says nothing of the module (Go: its
  // folder is the package declaring it).
  const leads = (module: string) =>
    (!target.scope.declared && family !== "go") ||
    moduleLeadsTo(family, { from: path, module }, target.path);
  const own = path === target.path;
  const seen = FREE_SEEN[family];
  const samePackage = seen === "folder"
    ? packageOf(family, path) === packageOf(family, target.path)
    : own;
  switch (binding.kind) {
    case "local":
      return false;
    case "file":
      // C links the files' global declarations, Ruby reopens a class in another file;
      // elsewhere another file's is its own name.
      return family === "c" || family === "ruby"
        ? scope.reach === undefined || scope.reach === "global"
        : samePackage;
    case "free":
      return seen === "any" || samePackage || scope.star === true;
    case "import":
      return leads(binding.module);
    case "member":
      return scope.module !== undefined && leads(scope.module);
  }
  return false;
}

// The package a file is in: its folder (for Java, below a Maven-style `src/main/java/`, so
// that a package's tests, under `src/test/java/`, are in it too).
function packageOf(family: string, path: string): string {
  const folder = folderOf(path);
  if (family !== "java") return folder;
  return /(?:^|\/)src\/[^/]+\/java\/(.*)$/.exec(folder)?.[1] ?? folder;
}

function folderOf(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf("/")));
}

/**
 * Whether a module as written in `from` (Go import path, Python module,
 * Rust path) may be the file `target`: unknown spellings are taken as
 * leading there.
 */
export function moduleLeadsTo(
  family: string,
  at: { from: string; module: string },
  target: string,
): boolean {
  const { module, from } = at;
  if (family === "go") {
    const folder = folderOf(target);
    return folder === "" || module === folder || module.endsWith(`/${folder}`);
  }
  if (family === "python") return pythonModuleLeadsTo({ from, module }, target);
  if (family === "rust") return rustModuleLeadsTo(module, target);
  if (family === "java") return pathLeadsTo(module.split("."), target);
  // A PSR-4 namespace is a folder under its vendor's root: its first part may be any folder.
  if (family === "php") return pathLeadsTo(module.split("\\").slice(1), target);
  return true;
}

// Whether a module written as its path's parts (`a.b` or `a.b.C` of Java, `A\B` of PHP) may
// be the folder of the file `target` or, for a type (`a.b.C`), the file itself.
function pathLeadsTo(parts: string[], target: string): boolean {
  const written = parts.filter((part) => part !== "").join("/");
  if (written === "") return true;
  const stem = target.replace(/\.[^./]*$/, "");
  const folder = folderOf(target);
  const under = (place: string) => place === written || place.endsWith(`/${written}`);
  return under(folder) || under(stem);
}

function pythonModuleLeadsTo(at: { from: string; module: string }, target: string): boolean {
  const stem = target.replace(/(\/__init__)?\.pyi?$/, "");
  const dots = /^\.*/.exec(at.module)![0].length;
  const rest = at.module.slice(dots).split(".").filter((part) => part !== "");
  if (dots > 0) {
    const parts = folderOf(at.from).split("/").filter((part) => part !== "");
    parts.splice(parts.length - (dots - 1));
    const base = [...parts, ...rest].join("/");
    // `from . import name`: the package's `__init__`, or its module `name`.
    return stem === base || folderOf(stem) === base;
  }
  const written = rest.join("/");
  return written === "" || stem === written || stem.endsWith(`/${written}`) ||
    folderOf(stem) === written || folderOf(stem).endsWith(`/${written}`);
}

function rustModuleLeadsTo(module: string, target: string): boolean {
  const segments = module.replace(/\{.*$/s, "").split("::").filter((part) => part !== "");
  const last = segments.at(-1);
  if (last === undefined || ["crate", "self", "super", "Self"].includes(last)) return true;
  if (/^[A-Z]/.test(last)) return true; // a type's associated item
  const parts = target.replace(/\.rs$/, "").split("/");
  if (["lib", "main", "mod"].includes(parts.at(-1) ?? "")) parts.pop();
  return parts.includes(last) || parts.includes(last.replace(/^r#/, ""));
}
