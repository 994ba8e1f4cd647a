/**
 * Search at one retained commit, correct first: the pattern is RE2 (re2js,
 * linear time, no backtracking) matched line by line, or a fixed string.
 * Candidate files come from the commit's trigram index (`index/`) when it
 * is built, else from `git grep -F -l` on literals one of which every match
 * must contain (or all files when there are none); each candidate's lines
 * are then verified with RE2, so both ways give the same answer. Globs follow
 * `rg -g` (later wins, `!` excludes, `/` anchors) and `paths` restrict the
 * folders searched (taken literally, never as patterns).
 *
 * @module
 */

import picomatch from "picomatch";
import { RE2JS } from "re2js";
import { runGit } from "../../shared/git.ts";
import type { MirrorObjects } from "../git/mirror_objects.ts";
import { READ_SCAN_LIMIT } from "../read/file_read.ts";
import type { Candidate, IndexedCommit } from "./index/index_reader.ts";
import { pathQuery } from "./index/path_query.ts";
import { trigramQuery } from "./index/trigram_query.ts";
import { SourcegraphError } from "../errors.ts";
import { type LineFinder, lineFinder, linesToVerify } from "./line_candidates.ts";
import { requiredLiterals } from "./pattern_literals.ts";
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

/**
 * How the candidates were found: `ready` through the commit's index,
 * `scan` (indexed, but the pattern has no trigram: every file in scope was
 * read), `not_ready` (the index of the commit is still being built: through
 * Git).
 */
export type IndexUse = "ready" | "scan" | "not_ready";

/** What a search found. */
export interface SearchOutcome {
  files: FileMatches[];
  fileCount: number;
  matchCount: number;
  /** A cap applied: more files or lines may match. */
  truncated: boolean;
  /** The time bound stopped the search before every candidate was verified. */
  partial: boolean;
  index: IndexUse;
}

/** Most files and matching lines one search collects. */
export const SEARCH_MAX_FILES = 1000;
/** Most matching lines one search collects. */
export const SEARCH_MAX_MATCHES = 10_000;
/** Time one search may spend verifying candidates. */
export const SEARCH_MAX_MS = 20_000;
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

/**
 * Searches `commit` in `mirror`: candidates from the commit's index when it
 * is given, else from Git; then every candidate verified line by line.
 */
export async function searchCommit(
  mirror: string,
  tree: MirrorObjects,
  request: SearchRequest & {
    commit: string;
    /** The commit's index, when it is built. */
    index?: IndexedCommit | null;
  },
): Promise<SearchOutcome> {
  const { commit } = request;
  const index = request.index ?? null;
  const pattern = compilePattern(request);
  const keep = globFilter(request.glob ?? []);
  const pathspecs = (request.paths ?? []).map((path) => path.replace(/\/+$/, ""));
  const inScope = (path: string) =>
    pathspecs.length === 0 ||
    pathspecs.some((root) => path === root || path.startsWith(`${root}/`));
  const ignoreCase = request.ignoreCase === true;
  const literals = requiredLiterals(request);
  const finder = lineFinder(literals, { ignoreCase });
  let use: IndexUse;
  let texts: AsyncIterable<{ path: string; lines: Iterable<[number, string]> }>;
  if (index !== null) {
    const query = trigramQuery(request.pattern, {
      fixedStrings: request.fixedStrings === true,
      ignoreCase,
    });
    use = query.op === "all" ? "scan" : "ready";
    texts = fromIndex(index, {
      candidates: index.candidates(query, {
        paths: pathQuery({ paths: pathspecs, globs: request.glob ?? [] }),
        keep: (path) => inScope(path) && keep(path),
      }),
      finder,
    });
  } else {
    use = "not_ready";
    // git grep -i folds ASCII only: RE2 also matches KELVIN SIGN for k and
    // LONG S for s, and folds non-ASCII letters, so such literals select nothing.
    const grepLiterals = ignoreCase && literals?.some((l) => /[^\x20-\x7e]|[ks]/i.test(l))
      ? null
      : literals;
    texts = fromGit(tree, {
      commit,
      paths: (await candidateFiles(mirror, commit, grepLiterals, ignoreCase, pathspecs)).filter(
        keep,
      ),
      finder,
    });
  }
  const outcome: SearchOutcome = {
    files: [],
    fileCount: 0,
    matchCount: 0,
    truncated: false,
    partial: false,
    index: use,
  };
  const perFile = request.maxLinesPerFile ?? 10;
  const deadline = performance.now() + SEARCH_MAX_MS;
  for await (const { path, lines } of texts) {
    if (outcome.fileCount === SEARCH_MAX_FILES || outcome.matchCount >= SEARCH_MAX_MATCHES) {
      outcome.truncated = true;
      break;
    }
    if (performance.now() > deadline) {
      outcome.partial = true;
      outcome.truncated = true;
      break;
    }
    const found: FileMatches = { path, lines: [], matchCount: 0 };
    for (const [number, line] of lines) {
      if (!pattern.test(line)) continue;
      if (outcome.matchCount + found.matchCount >= SEARCH_MAX_MATCHES) {
        outcome.truncated = true; // the match cap applies inside one file too
        break;
      }
      found.matchCount++;
      if (found.lines.length < perFile) found.lines.push({ number, text: line });
    }
    if (found.matchCount === 0) continue;
    outcome.files.push(found);
    outcome.fileCount++;
    outcome.matchCount += found.matchCount;
  }
  return outcome;
}

type Candidates = AsyncIterable<{ path: string; lines: Iterable<[number, string]> }>;

// Each candidate chunk is decoded and its lines found; numbers count from
// the chunk's first line.
async function* fromIndex(
  index: IndexedCommit,
  options: { candidates: readonly Candidate[]; finder: LineFinder },
): Candidates {
  const decoder = new TextDecoder();
  for (const candidate of options.candidates) {
    yield { path: candidate.path, lines: chunkLines(index, candidate, options.finder, decoder) };
  }
}

function* chunkLines(
  index: IndexedCommit,
  candidate: Candidate,
  finder: LineFinder,
  decoder: TextDecoder,
): Generator<[number, string]> {
  for (const chunk of candidate.chunks) {
    const text = index.chunkText(chunk.id);
    if (text === null) continue;
    for (const [number, line] of linesToVerify(decoder.decode(text), finder)) {
      yield [chunk.line + number, line];
    }
  }
}

async function* fromGit(
  tree: MirrorObjects,
  options: { commit: string; paths: string[]; finder: LineFinder },
): Candidates {
  for (const path of options.paths) {
    const entry = await tree.lookup(options.commit, path);
    if (!entry || entry.kind !== "file") continue;
    const bytes = await tree.blob(entry.oid, READ_SCAN_LIMIT);
    const text = bytes === null ? null : searchableText(bytes);
    // Binary and non-UTF-8 files are skipped, as indexed.
    if (text !== null) yield { path, lines: linesToVerify(text, options.finder) };
  }
}

async function candidateFiles(
  mirror: string,
  commit: string,
  literals: readonly string[] | null,
  ignoreCase: boolean,
  pathspecs: string[],
): Promise<string[]> {
  const scope = pathspecs.length > 0 ? pathspecs : [];
  const out = literals === null
    ? await runGit([
      "--literal-pathspecs",
      "ls-tree",
      "-r",
      "-z",
      "--name-only",
      "--full-tree",
      commit,
      "--",
      ...scope,
    ], {
      cwd: mirror,
      maxStdoutBytes: 64 * 1024 * 1024,
      timeoutMs: 30_000,
    })
    : await runGit([
      "--literal-pathspecs",
      "grep",
      // Git greps a commit on one thread unless told otherwise.
      `--threads=${GREP_THREADS}`,
      "-l",
      "-z",
      "-I",
      "-F",
      ...(ignoreCase ? ["-i"] : []),
      ...literals.flatMap((literal) => ["-e", literal]),
      commit,
      "--",
      ...scope,
    ], { cwd: mirror, okExitCodes: [0, 1], maxStdoutBytes: 64 * 1024 * 1024, timeoutMs: 30_000 });
  const prefix = literals === null ? "" : `${commit}:`;
  return new TextDecoder().decode(out.stdout).split("\0").filter((name) => name !== "")
    .map((name) => name.startsWith(prefix) ? name.slice(prefix.length) : name).sort();
}
