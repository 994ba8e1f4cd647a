/**
 * The grammars and tags queries of the grammar languages, loaded only by
 * the index builder, each when a file of its language is first met: each
 * grammar is the WebAssembly build its npm package ships, kept in
 * `grammars/` with the package's `queries/tags.scm` and licence (see its
 * README) and imported as bytes (no native addon, no read permission,
 * nothing fetched while a build runs, and the packages' C sources never
 * downloaded), and its queries are the shipped `tags.scm` followed by ours
 * (`queries/*.scm`), which add the definitions universal-ctags reports that
 * the shipped ones leave out.
 *
 * @module
 */

import type { GrammarLanguage } from "./languages.ts";

/** What a grammar language is parsed with. */
export interface GrammarFiles {
  wasm: Uint8Array;
  /** Tags queries, applied in order (a later capture of the same definition refines its kind). */
  queries: string[];
}

type Bytes = Promise<{ default: Uint8Array }>;
type Text = Promise<{ default: string }>;

async function files(wasm: Bytes, queries: Text[]): Promise<GrammarFiles> {
  return {
    wasm: (await wasm).default,
    queries: (await Promise.all(queries)).map((query) => query.default),
  };
}

// The imports are literal so that the module graph holds every grammar (cached with it), and
// dynamic so that a build loads only the grammars of the languages it meets.
const LOADERS: Record<GrammarLanguage, () => Promise<GrammarFiles>> = {
  c: () =>
    files(import("./grammars/tree-sitter-c/tree-sitter-c.wasm", { with: { type: "bytes" } }), [
      import("./grammars/tree-sitter-c/queries/tags.scm", { with: { type: "text" } }),
      import("./queries/c.scm", { with: { type: "text" } }),
    ]),
  cpp: () =>
    files(import("./grammars/tree-sitter-cpp/tree-sitter-cpp.wasm", { with: { type: "bytes" } }), [
      import("./grammars/tree-sitter-cpp/queries/tags.scm", { with: { type: "text" } }),
      import("./queries/c.scm", { with: { type: "text" } }),
      import("./queries/cpp.scm", { with: { type: "text" } }),
    ]),
  csharp: () =>
    files(
      import("./grammars/tree-sitter-c-sharp/tree-sitter-c_sharp.wasm", {
        with: { type: "bytes" },
      }),
      [
        import("./grammars/tree-sitter-c-sharp/queries/tags.scm", { with: { type: "text" } }),
        import("./queries/csharp.scm", { with: { type: "text" } }),
      ],
    ),
  go: () =>
    files(import("./grammars/tree-sitter-go/tree-sitter-go.wasm", { with: { type: "bytes" } }), [
      import("./grammars/tree-sitter-go/queries/tags.scm", { with: { type: "text" } }),
      import("./queries/go.scm", { with: { type: "text" } }),
    ]),
  java: () =>
    files(
      import("./grammars/tree-sitter-java/tree-sitter-java.wasm", { with: { type: "bytes" } }),
      [
        import("./grammars/tree-sitter-java/queries/tags.scm", { with: { type: "text" } }),
        import("./queries/java.scm", { with: { type: "text" } }),
      ],
    ),
  javascript: () =>
    files(
      import("./grammars/tree-sitter-javascript/tree-sitter-javascript.wasm", {
        with: { type: "bytes" },
      }),
      [
        import("./grammars/tree-sitter-javascript/queries/tags.scm", { with: { type: "text" } }),
        import("./queries/javascript.scm", { with: { type: "text" } }),
      ],
    ),
  php: () =>
    files(import("./grammars/tree-sitter-php/tree-sitter-php.wasm", { with: { type: "bytes" } }), [
      import("./grammars/tree-sitter-php/queries/tags.scm", { with: { type: "text" } }),
      import("./queries/php.scm", { with: { type: "text" } }),
    ]),
  python: () =>
    files(
      import("./grammars/tree-sitter-python/tree-sitter-python.wasm", { with: { type: "bytes" } }),
      [
        import("./grammars/tree-sitter-python/queries/tags.scm", { with: { type: "text" } }),
        import("./queries/python.scm", { with: { type: "text" } }),
      ],
    ),
  ruby: () =>
    files(
      import("./grammars/tree-sitter-ruby/tree-sitter-ruby.wasm", { with: { type: "bytes" } }),
      [
        import("./grammars/tree-sitter-ruby/queries/tags.scm", { with: { type: "text" } }),
        import("./queries/ruby.scm", { with: { type: "text" } }),
      ],
    ),
  rust: () =>
    files(
      import("./grammars/tree-sitter-rust/tree-sitter-rust.wasm", { with: { type: "bytes" } }),
      [
        import("./grammars/tree-sitter-rust/queries/tags.scm", { with: { type: "text" } }),
        import("./queries/rust.scm", { with: { type: "text" } }),
      ],
    ),
  // TypeScript's tags query holds only what JavaScript's does not: both apply.
  typescript: () =>
    files(
      import("./grammars/tree-sitter-typescript/tree-sitter-typescript.wasm", {
        with: { type: "bytes" },
      }),
      [
        import("./grammars/tree-sitter-javascript/queries/tags.scm", { with: { type: "text" } }),
        import("./grammars/tree-sitter-typescript/queries/tags.scm", { with: { type: "text" } }),
        import("./queries/javascript.scm", { with: { type: "text" } }),
        import("./queries/typescript.scm", { with: { type: "text" } }),
      ],
    ),
  tsx: () =>
    files(
      import("./grammars/tree-sitter-typescript/tree-sitter-tsx.wasm", { with: { type: "bytes" } }),
      [
        import("./grammars/tree-sitter-javascript/queries/tags.scm", { with: { type: "text" } }),
        import("./grammars/tree-sitter-typescript/queries/tags.scm", { with: { type: "text" } }),
        import("./queries/javascript.scm", { with: { type: "text" } }),
        import("./queries/typescript.scm", { with: { type: "text" } }),
      ],
    ),
};

/** The grammar and queries of `language`. */
export function grammarFiles(language: GrammarLanguage): Promise<GrammarFiles> {
  return LOADERS[language]();
}

/** The WebAssembly of the tree-sitter runtime itself. */
export async function runtimeWasm(): Promise<Uint8Array> {
  return (await import("web-tree-sitter/web-tree-sitter.wasm", { with: { type: "bytes" } }))
    .default;
}
