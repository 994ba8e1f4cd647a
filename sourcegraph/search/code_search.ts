/**
 * Search at one retained commit, correct first: the pattern is RE2 (re2js,
 * linear time, no backtracking) matched line by line, or a fixed string.
 * Candidate files come from `git grep -F -l` on a literal every match must
 * contain (or all files when there is none); each candidate's lines are then
 * verified with RE2. Globs follow `rg -g` (later wins, `!` excludes, `/`
 * anchors) and `paths` restrict the folders searched.
 *
 * @module
 */

import picomatch from "picomatch";
import { RE2JS } from "re2js";
import { runGit } from "../../shared/git.ts";
import type { MirrorObjects } from "../git/mirror_objects.ts";
import { READ_SCAN_LIMIT } from "../read/file_read.ts";
import type { Corpus } from "./search_corpus.ts";
import { SourcegraphError } from "../errors.ts";
import { splitLines } from "../../shared/text.ts";
import { searchableText } from "./searchable_text.ts";

/** Search options, after schema validation. */
export interface SearchRequest {
  pattern: string;
  fixedStrings?: boolean;
  ignoreCase?: boolean;
  glob?: string[];
  paths?: string[];
  output?: "content" | "files";
  maxLinesPerFile?: number;
}

/** One file's matches. */
export interface FileMatches {
  path: string;
  lines: { number: number; text: string }[];
  matchCount: number;
}

/** What a search found. */
export interface SearchOutcome {
  files: FileMatches[];
  fileCount: number;
  matchCount: number;
  truncated: boolean;
}

/** Most files and matching lines one search collects. */
export const SEARCH_MAX_FILES = 1000;
/** Most matching lines one search collects. */
export const SEARCH_MAX_MATCHES = 10_000;
const GREP_THREADS = Math.min(8, Math.max(2, navigator.hardwareConcurrency ?? 2));

/** Compiles the pattern, refusing what cannot match a single line sensibly. */
export function compilePattern(request: SearchRequest): RE2JS {
  const { pattern } = request;
  const invalid = (message: string) => new SourcegraphError("INVALID_PATTERN", message);
  if (pattern.length === 0 || new TextEncoder().encode(pattern).length > 8192) {
    throw invalid("the pattern must be 1 to 8192 bytes");
  }
  const flags = request.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0;
  if (request.fixedStrings) {
    if (/[\r\n]/.test(pattern)) throw invalid("a line-by-line search cannot match a newline");
    return RE2JS.compile(RE2JS.quote(pattern), flags);
  }
  if (/[\r\n]|\\n|\\x0[aA]|\\x\{0*[aA]\}|\\012|\\cJ|\(\?[a-zA-Z]*s/.test(pattern)) {
    throw invalid("a line-by-line search cannot match a newline");
  }
  if (/\(\?<?[=!]/.test(pattern)) throw invalid("lookaround is not supported (RE2)");
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, flags);
  } catch {
    throw invalid("the pattern is not valid RE2 syntax");
  }
  if (compiled.matcher("").find()) throw invalid("the pattern matches the empty string");
  return compiled;
}

/** A literal every match contains (for candidate selection), or null. */
export function requiredLiteral(request: SearchRequest): string | null {
  if (request.fixedStrings) return request.pattern;
  const pattern = request.pattern;
  // Alternation, inline flags and quoting change what must appear: no literal.
  if (pattern.includes("|") || pattern.includes("(?") || pattern.includes("\\Q")) return null;
  let best = "";
  let current = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const next = pattern[i + 1];
    const quantified = next === "?" || next === "*" || next === "{";
    if (c === "\\" && next !== undefined && /[^A-Za-z0-9]/.test(next)) {
      const after = pattern[i + 2];
      if (after === "?" || after === "*" || after === "{") current = "";
      else current += next;
      i++;
    } else if (c === "\\") {
      current = ""; // \d, \w, \b …: a class or assertion, not a literal
      i++;
    } else if (/[A-Za-z0-9_\- ,:;=<>"'\/]/.test(c) && !quantified) {
      current += c;
    } else {
      current = "";
      if (c === "[" || c === "(") {
        // A class or group breaks the literal; skip a class body whole.
        if (c === "[") i = skipClass(pattern, i);
      }
    }
    if (current.length > best.length) best = current;
  }
  return best.length >= 2 ? best : null;
}

function skipClass(pattern: string, at: number): number {
  for (let i = at + 1; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === "]" && i > at + 1) return i;
  }
  return pattern.length;
}

/** Builds the glob filter of `rg -g`: later globs win, `!` excludes, `/` anchors. */
export function globFilter(globs: readonly string[]): (path: string) => boolean {
  if (globs.length === 0) return () => true;
  const rules = globs.map((raw) => {
    if (raw.length === 0 || raw === "!") {
      throw new SourcegraphError("INVALID_GLOB", "a glob must not be empty");
    }
    const exclude = raw.startsWith("!");
    let glob = exclude ? raw.slice(1) : raw;
    const anchored = glob.startsWith("/") || glob.slice(0, -1).includes("/");
    if (glob.startsWith("/")) glob = glob.slice(1);
    let match: (path: string) => boolean;
    try {
      const matcher = picomatch(glob, { dot: true, basename: !anchored });
      match = (path: string) => matcher(path) || matcher(path.split("/").slice(0, -1).join("/"));
    } catch {
      throw new SourcegraphError("INVALID_GLOB", "the glob is not valid");
    }
    return { exclude, match };
  });
  const hasInclude = rules.some((rule) => !rule.exclude);
  return (path) => {
    let verdict = !hasInclude;
    for (const rule of rules) if (rule.match(path)) verdict = !rule.exclude;
    return verdict;
  };
}

/** Searches `commit` in `mirror`, scanning `corpus` (decoded files of that commit) when given. */
export async function searchCommit(
  mirror: string,
  tree: MirrorObjects,
  request: SearchRequest & {
    commit: string;
    /** The commit's cached corpus, when one could be built (else blobs are read). */
    corpus?: Corpus | null;
  },
): Promise<SearchOutcome> {
  const { commit } = request;
  const corpus = request.corpus ?? null;
  const pattern = compilePattern(request);
  const keep = globFilter(request.glob ?? []);
  const pathspecs = (request.paths ?? []).map((path) => path.replace(/\/+$/, ""));
  const inScope = (path: string) =>
    pathspecs.length === 0 ||
    pathspecs.some((root) => path === root || path.startsWith(`${root}/`));
  const literal = requiredLiteral(request);
  const ignoreCase = request.ignoreCase === true;
  // Case-insensitive literals are faster through git grep -i than lower-casing every file.
  const useCorpus = corpus !== null && (literal === null || !ignoreCase);
  const texts: AsyncIterable<{ path: string; text: string }> = useCorpus
    ? fromCorpus(corpus!, (path) => inScope(path) && keep(path), ignoreCase ? null : literal)
    : fromGit(
      tree,
      commit,
      (await candidateFiles(mirror, commit, literal, ignoreCase, pathspecs)).filter(keep),
    );
  const outcome: SearchOutcome = { files: [], fileCount: 0, matchCount: 0, truncated: false };
  const perFile = request.maxLinesPerFile ?? 10;
  for await (const { path, text } of texts) {
    if (outcome.fileCount === SEARCH_MAX_FILES || outcome.matchCount >= SEARCH_MAX_MATCHES) {
      outcome.truncated = true;
      break;
    }
    const found: FileMatches = { path, lines: [], matchCount: 0 };
    const lines = splitLines(text);
    for (let i = 0; i < lines.length; i++) {
      if (!pattern.matcher(lines[i]).find()) continue;
      if (outcome.matchCount + found.matchCount >= SEARCH_MAX_MATCHES) {
        outcome.truncated = true; // the match cap applies inside one file too
        break;
      }
      found.matchCount++;
      if (found.lines.length < perFile) found.lines.push({ number: i + 1, text: lines[i] });
    }
    if (found.matchCount === 0) continue;
    outcome.files.push(found);
    outcome.fileCount++;
    outcome.matchCount += found.matchCount;
  }
  return outcome;
}

async function* fromCorpus(
  corpus: Corpus,
  keep: (path: string) => boolean,
  literal: string | null,
): AsyncIterable<{ path: string; text: string }> {
  for (let i = 0; i < corpus.paths.length; i++) {
    const text = corpus.texts[i];
    if (text === null || (literal !== null && !text.includes(literal))) continue;
    if (keep(corpus.paths[i])) yield { path: corpus.paths[i], text };
  }
}

async function* fromGit(
  tree: MirrorObjects,
  commit: string,
  paths: string[],
): AsyncIterable<{ path: string; text: string }> {
  for (const path of paths) {
    const entry = await tree.lookup(commit, path);
    if (!entry || entry.kind !== "file") continue;
    const bytes = await tree.blob(entry.oid, READ_SCAN_LIMIT);
    const text = bytes === null ? null : searchableText(bytes);
    if (text !== null) yield { path, text }; // binary and non-UTF-8 files are skipped, as in the corpus
  }
}

async function candidateFiles(
  mirror: string,
  commit: string,
  literal: string | null,
  ignoreCase: boolean,
  pathspecs: string[],
): Promise<string[]> {
  const scope = pathspecs.length > 0 ? pathspecs : [];
  const out = literal === null
    ? await runGit(["ls-tree", "-r", "-z", "--name-only", "--full-tree", commit, "--", ...scope], {
      cwd: mirror,
      maxStdoutBytes: 64 * 1024 * 1024,
      timeoutMs: 30_000,
    })
    : await runGit([
      "grep",
      // Git greps a commit on one thread unless told otherwise.
      `--threads=${GREP_THREADS}`,
      "-l",
      "-z",
      "-I",
      "-F",
      ...(ignoreCase ? ["-i"] : []),
      "-e",
      literal,
      commit,
      "--",
      ...scope,
    ], { cwd: mirror, okExitCodes: [0, 1], maxStdoutBytes: 64 * 1024 * 1024, timeoutMs: 30_000 });
  const prefix = literal === null ? "" : `${commit}:`;
  return new TextDecoder().decode(out.stdout).split("\0").filter((name) => name !== "")
    .map((name) => name.startsWith(prefix) ? name.slice(prefix.length) : name).sort();
}
