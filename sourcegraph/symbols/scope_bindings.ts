/**
 * What each identifier spelling a name is bound to in one file of C, C++,
 * Go, Python, Rust, Java, C#, PHP or Ruby, from its syntax tree alone
 * (TypeScript and JavaScript have their own analysis, `name_bindings.ts`):
 * a declaration of a
 * function, block, loop, closure or match arm (`local`, parameters
 * included), a declaration of the file (`file`, with how far it is seen:
 * the file, its package, or everywhere), an imported name (`import`), a
 * member (`member`: `x.f`, `p->f`, `self.f`, a field or method declared in
 * a type; a name qualified by an imported module, `pkg.Name`, `m.a`,
 * `a::b::c`, has that module as its receiver), or nothing the file declares
 * (`free`). A name is looked up from its own scope outward, so a local
 * shadows the file's declarations; every declaration of a scope is seen
 * throughout it (order within a scope is not followed).
 *
 * The node types of each language sit in `scope_languages.ts` (C, C++, Go,
 * Python, Rust), `scope_class_languages.ts` (Java, C#) and
 * `scope_script_languages.ts` (PHP, Ruby).
 *
 * @module
 */

import type { Node } from "web-tree-sitter";
import type { Binding, Declared } from "./name_bindings.ts";
import {
  type Declare,
  type Reach,
  SCOPE_RULES as PROCEDURAL,
  type ScopeRules,
} from "./scope_languages.ts";
import { CLASS_SCOPE_RULES } from "./scope_class_languages.ts";
import { SCRIPT_SCOPE_RULES } from "./scope_script_languages.ts";

const SCOPE_RULES: Record<string, ScopeRules> = {
  ...PROCEDURAL,
  ...CLASS_SCOPE_RULES,
  ...SCRIPT_SCOPE_RULES,
};

export type { Reach } from "./scope_languages.ts";

/** What an occurrence is, besides its binding, for the languages analyzed here. */
export interface ScopeInfo {
  /** Its name space: a value, a type (separate in C and C++ only), or a member. */
  space: "value" | "type" | "member";
  /** For a declaration of the file: where it is seen (the file, its folder's package, everywhere). */
  reach?: Reach;
  /** For a name qualified by an imported module (`pkg.Name`, `m.a`, `a::b::c`): that module. */
  module?: string;
  /** Whether the file imports every name of some module (`from m import *`, `use m::*`). */
  star?: boolean;
  /** For a member: its receiver is the enclosing type's own value (`self.f`, `this->f`). */
  self?: boolean;
  /** For a member of the enclosing type's own value: its declaration there, when found. */
  declaration?: { line: number; column: number };
  /** For a member of a language whose methods and fields are apart (Java, PHP): a method. */
  call?: boolean;
}

/** Whether this analysis knows the language's scopes. */
export function scopesLanguage(language: string): boolean {
  return Object.hasOwn(SCOPE_RULES, language);
}

/** One declaration a scope makes. */
export interface ScopeDeclaration {
  node: Node;
  declares: string;
  reach?: Reach;
}

/**
 * The scopes of one file, analyzed for one name at a time: each scope's
 * declarations are found once per name and kept for the file.
 */
export class ScopeAnalysis {
  #rules: ScopeRules;
  #path: string;
  #root: Node;
  #byScope = new Map<string, ScopeDeclaration[]>();
  #star: boolean | null = null;

  /** The analysis of the file at `path` (its tree's root `root`), in `language`. */
  constructor(root: Node, at: { language: string; path: string }) {
    this.#rules = SCOPE_RULES[at.language];
    this.#path = at.path;
    this.#root = root;
  }

  /** The binding of the name node `node`, and what else is known of it. */
  occurrence(node: Node): { binding: Binding; scope: ScopeInfo } {
    const rules = this.#rules;
    const space = rules.space(node);
    const member = rules.member(node, this);
    if (member !== null) {
      const qualified = space === "member" ? "value" : space;
      const scope: ScopeInfo = { space: member.module === undefined ? "member" : qualified };
      if (member.module !== undefined) scope.module = member.module;
      if (member.self === true) scope.self = true;
      if (member.reach !== undefined) scope.reach = member.reach;
      if (member.declaration !== undefined) scope.declaration = placeOf(member.declaration);
      if (member.call === true) scope.call = true;
      const receiver = member.module === undefined
        ? { kind: "unknown" as const }
        : { kind: "module" as const, module: member.module };
      return { binding: { kind: "member", receiver }, scope };
    }
    const imported = rules.imported?.(node) ?? null;
    if (imported !== null) {
      const { line, column } = placeOf(node);
      return { binding: { kind: "import", ...imported, line, column }, scope: { space } };
    }
    return this.#lookedUp(node, space);
  }

  #lookedUp(node: Node, space: ScopeInfo["space"]): { binding: Binding; scope: ScopeInfo } {
    const found = this.lookUp(node);
    if (found === null) {
      const scope: ScopeInfo = { space };
      if (this.star()) scope.star = true;
      return { binding: { kind: "free" }, scope };
    }
    const { declaration, top } = found;
    if (declaration.declares === "import") {
      const { line, column } = placeOf(declaration.node);
      const module = this.#rules.importModule?.(declaration.node) ?? "";
      const binding: Binding = { kind: "import", module, imported: node.text, line, column };
      return { binding, scope: { space } };
    }
    const declared: Declared = {
      ...placeOf(declaration.node),
      declares: declaration.declares,
      container: null,
    };
    // A type's nested declaration has a reach of its own: it is no local.
    if (!top && declaration.reach === undefined) {
      return { binding: { kind: "local", ...declared }, scope: { space } };
    }
    const scope: ScopeInfo = { space, reach: declaration.reach ?? "global" };
    return { binding: { kind: "file", ...declared }, scope };
  }

  /** The declaration `node`'s name is bound to, nearest scope first; null when none is. */
  lookUp(node: Node): { declaration: ScopeDeclaration; top: boolean } | null {
    const rules = this.#rules;
    for (let scope = node.parent; scope !== null; scope = scope.parent) {
      if (rules.opaque?.(scope, node) === true) continue;
      const declarations = this.declarations(scope, node.text).filter((declaration) =>
        rules.sameSpace(declaration.node, node)
      );
      const chosen = declarations.find((declaration) => declaration.declares !== "prototype") ??
        declarations[0];
      if (chosen !== undefined) return { declaration: chosen, top: scope.parent === null };
    }
    return null;
  }

  /** The declarations of `name` the scope node `scope` makes (none when it is no scope). */
  declarations(scope: Node, name: string): ScopeDeclaration[] {
    const key = `${scope.id}\0${name}`;
    let found = this.#byScope.get(key);
    if (found === undefined) {
      found = [];
      const list = found;
      const declare: Declare = (node, declares, options = {}) => {
        if (node === null || (options.spelled ?? node.text) !== name) return;
        const { reach } = options;
        list.push(reach === undefined ? { node, declares } : { node, declares, reach });
      };
      if (scope.parent === null) this.#rules.top(scope, { declare, path: this.#path });
      else this.#rules.scope(scope, declare, name);
      this.#byScope.set(key, found);
    }
    return found;
  }

  /** Whether the file imports every name of some module. */
  star(): boolean {
    if (this.#star === null) this.#star = this.#rules.star?.(this.#root) ?? false;
    return this.#star;
  }
}

function placeOf(node: Node): { line: number; column: number } {
  return { line: node.startPosition.row + 1, column: node.startPosition.column };
}
