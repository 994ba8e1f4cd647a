/**
 * Members of the platform's own object types (`ProxyHandler`, `PropertyDescriptor`): types no
 * file of the tree declares or imports, declared by the language's libraries. The keys of every
 * object of such a type (passed to `new Proxy`, or to a parameter annotated with the type) and
 * the members read on a value annotated with it are one member, the library's; the compiler's
 * references relate them all, wherever they are written.
 *
 * @module
 */

import type { Receiver } from "../symbols/name_bindings.ts";
import type { NameOccurrences } from "../symbols/symbol_extractor.ts";

/**
 * The lookups of a name resolver (`NameResolver`'s) this module asks: written out here so that
 * the resolver, which asks this module, and this module do not import each other.
 */
export interface TypeLookups {
  /** A name's occurrences in a file, with their bindings. */
  analysis(path: string, name: string): Promise<NameOccurrences | null>;
  /** Where a name a file uses is declared, null when not found. */
  declarationOf(path: string, name: string, depth: number): Promise<unknown | null>;
  /** The function an argument is passed to, with its parameters' types. */
  calleeOf(
    path: string,
    argument: { callee: string; module?: string; on?: Receiver },
  ): Promise<{ path: string; parameters?: (string | string[] | null)[] } | null>;
}

// The platform's constructors and functions whose parameters are of its object types, per
// parameter (null: another type), as its libraries declare them.
const PLATFORM_PARAMETERS: Record<string, (string | null)[]> = {
  Proxy: [null, "ProxyHandler"],
};

// The platform's types made of another type's keys or values (`Record<K, V>`, `Partial<T>`):
// their objects' keys are that other type's, or any string, never members of their own.
const TYPE_OPERATORS = new Set([
  "Record",
  "Partial",
  "Required",
  "Readonly",
  "Pick",
  "Omit",
  "Exclude",
  "Extract",
  "NonNullable",
  "ReturnType",
  "Parameters",
  "InstanceType",
  "Awaited",
  "Promise",
  "Array",
  "ReadonlyArray",
  "Map",
  "Set",
  "WeakMap",
  "WeakSet",
  "Object",
  "Function",
]);

/**
 * The platform object type an occurrence of a member `name` is of, as `path` sees it: of a key of
 * an object passed to a parameter of that type (or to the platform's callee taking one), of a
 * member read on a value annotated with it, or of `this` in such an object's method (the key that
 * object declares); undefined for any other occurrence.
 */
export async function platformTypeOf(
  resolver: TypeLookups,
  at: { path: string; name: string; receiver: Receiver },
): Promise<string | undefined> {
  const { path, receiver } = at;
  if (receiver.kind === "type") {
    return await isPlatformType(resolver, path, receiver.type) ? receiver.type : undefined;
  }
  if (receiver.kind === "this" && receiver.literal !== undefined) {
    return await literalKeyType(resolver, { ...at, ...receiver.literal });
  }
  if (receiver.kind !== "declaration" || receiver.literal !== true) return undefined;
  const { argument } = receiver;
  if (argument === undefined || argument.returned) return undefined;
  if (argument.on === undefined && argument.module === undefined) {
    const own = await resolver.declarationOf(path, argument.callee, 1);
    const types = PLATFORM_PARAMETERS[argument.callee];
    if (own === null && types !== undefined) {
      const global = !(await importedName(resolver, path, argument.callee));
      return global ? types[argument.index] ?? undefined : undefined;
    }
  }
  const callee = await resolver.calleeOf(path, argument);
  const type = callee?.parameters?.[argument.index];
  if (callee === null || typeof type !== "string") return undefined;
  return await isPlatformType(resolver, callee.path, type) ? type : undefined;
}

// For `this` in a method of an object literal (its lines `from` to `to`): the platform type of
// that object's key `name`, when it declares one.
async function literalKeyType(
  resolver: TypeLookups,
  at: { path: string; name: string; from: number; to: number },
): Promise<string | undefined> {
  const occurrences = (await resolver.analysis(at.path, at.name))?.occurrences ?? [];
  for (const occurrence of occurrences) {
    const receiver = occurrence.binding?.kind === "member" ? occurrence.binding.receiver : null;
    if (receiver?.kind !== "declaration" || receiver.literal !== true) continue;
    if (occurrence.line < at.from || occurrence.line > at.to) continue;
    return await platformTypeOf(resolver, { ...at, receiver });
  }
  return undefined;
}

// Whether `type`, as `path` sees it, is one of the platform's object types: no declaration of the
// files, no import (a package's type is not in the files), not a type operator of the platform.
async function isPlatformType(
  resolver: TypeLookups,
  path: string,
  type: string,
): Promise<boolean> {
  if (TYPE_OPERATORS.has(type) || !/^[A-Z]/.test(type)) return false;
  if (await resolver.declarationOf(path, type, 1) !== null) return false;
  return !(await importedName(resolver, path, type));
}

// Whether `path` imports `name` (from a package or a file).
async function importedName(
  resolver: TypeLookups,
  path: string,
  name: string,
): Promise<boolean> {
  const occurrences = (await resolver.analysis(path, name))?.occurrences ?? [];
  return occurrences.some((occurrence) => occurrence.binding?.kind === "import");
}
