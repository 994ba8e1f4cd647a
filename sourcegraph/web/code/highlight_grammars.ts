/**
 * highlight.js with the grammars `code_languages.ts` can name, and the one
 * call the highlighting worker makes. highlight.js was chosen by
 * measurement against tree-sitter's highlight queries (which the symbol
 * index already loads): on a 5,000-line C file it is about as fast or
 * faster, it needs no parse tree held in memory, and it has grammars for
 * every language in the table where tree-sitter has twelve
 * (`tests/bench/highlight_bench.ts`, figures in the README). Its output is
 * class-based (`<span class="hljs-keyword">`) with the text escaped, which
 * `highlighted_lines.ts` reads back into segments, so the pages escape
 * everything themselves.
 *
 * Loaded only in the worker: the grammars cost start-up time and memory the
 * rest of the service does not need.
 *
 * @module
 */

import hljs from "highlight.js/lib/core";
import asciidoc from "highlight.js/lib/languages/asciidoc";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cmake from "highlight.js/lib/languages/cmake";
import cpp from "highlight.js/lib/languages/cpp";
import csharp from "highlight.js/lib/languages/csharp";
import css from "highlight.js/lib/languages/css";
import dart from "highlight.js/lib/languages/dart";
import diff from "highlight.js/lib/languages/diff";
import dockerfile from "highlight.js/lib/languages/dockerfile";
import elixir from "highlight.js/lib/languages/elixir";
import erlang from "highlight.js/lib/languages/erlang";
import go from "highlight.js/lib/languages/go";
import gradle from "highlight.js/lib/languages/gradle";
import groovy from "highlight.js/lib/languages/groovy";
import haskell from "highlight.js/lib/languages/haskell";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import kotlin from "highlight.js/lib/languages/kotlin";
import lua from "highlight.js/lib/languages/lua";
import makefile from "highlight.js/lib/languages/makefile";
import markdown from "highlight.js/lib/languages/markdown";
import objectivec from "highlight.js/lib/languages/objectivec";
import perl from "highlight.js/lib/languages/perl";
import php from "highlight.js/lib/languages/php";
import powershell from "highlight.js/lib/languages/powershell";
import protobuf from "highlight.js/lib/languages/protobuf";
import python from "highlight.js/lib/languages/python";
import r from "highlight.js/lib/languages/r";
import ruby from "highlight.js/lib/languages/ruby";
import rust from "highlight.js/lib/languages/rust";
import scala from "highlight.js/lib/languages/scala";
import scss from "highlight.js/lib/languages/scss";
import sql from "highlight.js/lib/languages/sql";
import swift from "highlight.js/lib/languages/swift";
import tcl from "highlight.js/lib/languages/tcl";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

type LanguageFn = Parameters<typeof hljs.registerLanguage>[1];

/** The grammars, by the names `code_languages.ts` uses. */
export const GRAMMARS: Readonly<Record<string, LanguageFn>> = {
  asciidoc,
  bash,
  c,
  cmake,
  cpp,
  csharp,
  css,
  dart,
  diff,
  dockerfile,
  elixir,
  erlang,
  go,
  gradle,
  groovy,
  haskell,
  ini,
  java,
  javascript,
  json,
  kotlin,
  lua,
  makefile,
  markdown,
  objectivec,
  perl,
  php,
  powershell,
  protobuf,
  python,
  r,
  ruby,
  rust,
  scala,
  scss,
  sql,
  swift,
  tcl,
  typescript,
  xml,
  yaml,
};

for (const [name, grammar] of Object.entries(GRAMMARS)) hljs.registerLanguage(name, grammar);

/**
 * Each of `texts` highlighted as `language` on its own: highlight.js's HTML
 * (class-based spans, the text escaped). Throws for a language not in
 * `GRAMMARS`.
 */
export function highlightTexts(texts: readonly string[], language: string): string[] {
  if (!Object.hasOwn(GRAMMARS, language)) throw new Error(`no grammar named ${language}`);
  return texts.map((text) => hljs.highlight(text, { language, ignoreIllegals: true }).value);
}
