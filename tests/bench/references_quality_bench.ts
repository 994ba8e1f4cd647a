/**
 * Quality of "find references" and "go to definition" on real TypeScript
 * trees, against the TypeScript compiler's language service (typescript
 * 6.0.3, the oracle). For each tree (a Git work tree; its HEAD commit is
 * read, not the files on disk), a seeded sample of identifiers at declaration
 * sites is drawn (declaration files, `.d.ts`, aside): functions, classes, interfaces, type aliases, enums and
 * namespaces at module level, module-level variables, and the methods and
 * properties of classes, interfaces and object types; locals inside function
 * bodies and parameters are left out. The sample is stratified by file: a
 * file with declarations is drawn first, then a declaration in it, until N
 * distinct sites are drawn.
 *
 * For each identifier, `findReferences` at its declaration gives the true
 * references (within the tree; the compiler's own library files aside), and
 * `getDefinitionAtPosition` there its declarations. A finder is scored:
 * - references: precision and recall at line granularity (file and line; a
 *   line counts once however many references it holds), macro-averaged over
 *   identifiers;
 * - definition: from up to K true reference positions per identifier (a
 *   seeded sample), whether the finder's definition lands on a line of a true
 *   declaration (the compiler's `getDefinitionAtPosition` at that position: the
 *   site's declarations, or a reference's own where it declares a member of its
 *   own; a position the compiler answers only outside the tree, such as an
 *   object literal's method typed by a library's property, is not asked); the
 *   share over all positions asked. Where the compiler names one declaration
 *   of a symbol declared more than once (an overload a call resolves to, one
 *   block of a merged interface), any declaration of that symbol counts, and
 *   where it names an import (it does from a shorthand property, `{ name }`),
 *   the imported original counts too.
 *
 * The baseline finder is `git grep -w -n --column -I -F -e NAME HEAD` over the
 * whole tree (every file, not only TypeScript: what a coding agent runs today).
 * Its definition is the first hit, in `git grep`'s order (path, then line),
 * whose line matches either `\b(function\*?|class|interface|type|const|let|var|enum|namespace)\s+NAME\b`
 * or, at line start after optional modifiers (`public private protected static
 * readonly async abstract override declare get set`), `NAME` followed by `(`,
 * `<`, `:`, `?:`, `!:` or `=` (a method or property declaration); no such hit
 * answers nothing, which counts as a miss. It does not depend on the position.
 *
 * `--service URL` (the MCP endpoint, e.g. `http://127.0.0.1:8787/sourcegraph/mcp`,
 * of a service serving the tree as `local/<folder>`, or `--service-repo NAME`)
 * measures the service's MCP `references` and `definition` tools beside the baseline, with the
 * same seed and sample, through the MCP SDK client: its references are
 * every row of every page asked at the declaration's position (its line and
 * column: the name alone names the line's first occurrence of it, which may
 * be another symbol, as in `({ id }: { id: number })`); its definition is the MCP `definition` tool's answer at
 * the reference position (its column: the oracle's, in UTF-16 units, which
 * is the tool's character count on lines without characters outside the
 * BMP). Set `SOURCEGRAPH_TOKEN` when the repository is not public.
 *
 * Trees: by default this checkout (its HEAD). Other trees are given with
 * `--tree PATH` (repeatable; a Git work tree). The figures in
 * docs/benchmarks.md also use a snapshot of the public repository
 * honojs/hono (TypeScript, about 490 files), made a Git repository of its
 * own: `git clone https://github.com/honojs/hono && git -C hono checkout
 * <commit named in docs/benchmarks.md>`, or from a snapshot without history:
 * `git init -q -b main && git add -A && git commit -qm corpus`.
 *
 * Run: deno run --config deno.dev.json --allow-read --allow-run=git --allow-env --allow-sys=cpus,systemMemoryInfo \
 *   tests/bench/references_quality_bench.ts [--tree PATH]... [--sample N] \
 *   [--seed S] [--definition-positions K] [--misses N] [--service URL] [--no-baseline] [--dump FILE]
 *
 * @module
 */

import { cpus, totalmem } from "node:os";
import { basename, join, relative, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import ts from "typescript";
import { percentile, prng } from "../support/bench_stats.ts";
import {
  definitionHit,
  type Location,
  macroAverage,
  type ReferenceFinder,
  type ReferenceScore,
  scoreReferences,
  share,
} from "./references/scoring.ts";

const USAGE = "usage: references_quality_bench.ts [--tree PATH]... [--sample N] [--seed S] " +
  "[--definition-positions K] [--misses N] [--service URL [--service-repo NAME]]\n" +
  "  --tree PATH   a Git work tree whose HEAD is measured (repeatable; default: this checkout)\n" +
  "  --sample N    identifiers per tree (default 200)\n" +
  "  --seed S      the sample's seed (default 1)\n" +
  "  --definition-positions K   reference positions per identifier asked for a definition " +
  "(default 5)\n" +
  "  --misses N    also print, per tree, N identifiers whose references were not exact (worst " +
  "precision first) and N whose definition was missed\n" +
  "  --service URL  also measure the MCP `references` and `definition` tools of the service at URL (its MCP " +
  "endpoint), on the tree served as local/<folder> or --service-repo NAME\n" +
  "  --no-baseline  measure only the service (with --service), not `git grep -w`\n" +
  "  --dump FILE   also write, per identifier not answered exactly, its lines missed and its lines " +
  "answered wrongly, and per definition missed, the position asked, the declarations expected and " +
  "the answer (`definitionMiss: true`) (JSON lines)";

function options(args: string[]): {
  trees: string[];
  misses: number;
  sample: number;
  seed: number;
  positions: number;
  service: string | null;
  serviceRepo: string | null;
  dump: string | null;
  baseline: boolean;
} {
  const trees: string[] = [];
  let sample = 200;
  let seed = 1;
  let positions = 5;
  let service: string | null = null;
  let serviceRepo: string | null = null;
  let misses = 0;
  let dump: string | null = null;
  let baseline = true;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--no-baseline") {
      baseline = false;
      continue;
    }
    const value = args[i + 1];
    const number = Number(value);
    if (args[i] === "--tree" && value) trees.push(resolve(value));
    else if (args[i] === "--sample" && Number.isInteger(number) && number > 0) sample = number;
    else if (args[i] === "--seed" && Number.isInteger(number)) seed = number;
    else if (args[i] === "--definition-positions" && Number.isInteger(number) && number > 0) {
      positions = number;
    } else if (args[i] === "--service" && value) service = value;
    else if (args[i] === "--service-repo" && value) serviceRepo = value;
    else if (args[i] === "--misses" && Number.isInteger(number) && number >= 0) misses = number;
    else if (args[i] === "--dump" && value) dump = value;
    else {
      console.error(USAGE);
      Deno.exit(2);
    }
    i++;
  }
  if (trees.length === 0) trees.push(resolve(new URL("../..", import.meta.url).pathname));
  return { trees, misses, sample, seed, positions, service, serviceRepo, dump, baseline };
}

async function git(tree: string, args: string[], stdin?: Uint8Array): Promise<Uint8Array> {
  const child = new Deno.Command("git", {
    args,
    cwd: tree,
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Read while writing: a long request would otherwise fill both pipes and stall.
  const output = child.output();
  if (stdin) {
    const writer = child.stdin.getWriter();
    await writer.write(stdin);
    await writer.close();
  }
  const out = await output;
  // git grep exits 1 when nothing matches.
  if (out.code > 1 || (out.code === 1 && args[0] !== "grep")) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return out.stdout;
}

const TS_FILE = /\.(ts|tsx|mts|cts)$/;

/** The TypeScript files of a commit, path → text (none under node_modules/). */
async function typescriptFiles(tree: string, commit: string): Promise<Map<string, string>> {
  const listing = new TextDecoder().decode(await git(tree, ["ls-tree", "-r", "-z", commit]));
  const blobs: [string, string][] = [];
  for (const entry of listing.split("\0")) {
    const match = /^\d+ blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
    if (match && TS_FILE.test(match[2]) && !/(^|\/)node_modules\//.test(match[2])) {
      blobs.push([match[2], match[1]]);
    }
  }
  const request = new TextEncoder().encode(blobs.map(([, id]) => id).join("\n") + "\n");
  const out = await git(tree, ["cat-file", "--batch"], request);
  const files = new Map<string, string>();
  const decoder = new TextDecoder();
  let offset = 0;
  for (const [path] of blobs) {
    const headerEnd = out.indexOf(10, offset);
    const size = Number(decoder.decode(out.subarray(offset, headerEnd)).split(" ")[2]);
    files.set(path, decoder.decode(out.subarray(headerEnd + 1, headerEnd + 1 + size)));
    offset = headerEnd + 1 + size + 1;
  }
  return files;
}

/**
 * The module path mapping (`compilerOptions.paths`) of the commit's root `tsconfig.json`, else
 * `tsconfig.base.json` (a workspace's shared settings): the tree's own aliases, such as
 * `@inspector/core/*`, resolve as its compiler resolves them. Null when neither maps paths.
 */
async function pathMapping(tree: string, commit: string): Promise<ts.MapLike<string[]> | null> {
  for (const name of ["tsconfig.json", "tsconfig.base.json"]) {
    let text: string;
    try {
      text = new TextDecoder().decode(await git(tree, ["show", `${commit}:${name}`]));
    } catch {
      continue;
    }
    const parsed = ts.parseConfigFileTextToJson(name, text).config;
    const paths = parsed?.compilerOptions?.paths;
    if (paths) return paths;
  }
  return null;
}

/** A language service over the commit's TypeScript files, kept in memory. */
function languageService(
  tree: string,
  files: Map<string, string>,
  paths: ts.MapLike<string[]> | null,
): ts.LanguageService {
  const absolute = new Map([...files].map(([path, text]) => [join(tree, path), text]));
  const options: ts.CompilerOptions = {
    // Mapped paths are relative to the configuration's folder, the tree's root.
    ...(paths ? { paths, pathsBasePath: tree } : {}),
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    jsx: ts.JsxEmit.Preserve,
    noEmit: true,
    skipLibCheck: true,
    strict: true,
  };
  const directories = new Set<string>();
  for (const path of absolute.keys()) {
    for (
      let dir = join(path, "..");
      dir.length > 1 && !directories.has(dir);
      dir = join(dir, "..")
    ) {
      directories.add(dir);
    }
  }
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => [...absolute.keys()],
    getScriptVersion: () => "1",
    getScriptSnapshot: (name) => {
      const text = absolute.get(name) ?? ts.sys.readFile(name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => tree,
    getDefaultLibFileName: (settings) => ts.getDefaultLibFilePath(settings),
    // Module resolution sees the commit's files, not what the work tree holds besides.
    fileExists: (name) => absolute.has(name) || (!name.startsWith(tree) && ts.sys.fileExists(name)),
    readFile: (name) =>
      absolute.get(name) ?? (name.startsWith(tree) ? undefined : ts.sys.readFile(name)),
    // Asked with a trailing slash for `from '.'` and `from '..'` (a folder's index file).
    directoryExists: (name) =>
      directories.has(name.replace(/\/+$/, "")) ||
      (!name.startsWith(tree) && ts.sys.directoryExists(name)),
  };
  return ts.createLanguageService(host, ts.createDocumentRegistry());
}

/** An identifier at a declaration site. */
interface Site {
  name: string;
  kind: string;
  location: Location;
  /** Offset of the name in its file. */
  offset: number;
}

const MEMBER_KINDS: Partial<Record<ts.SyntaxKind, string>> = {
  [ts.SyntaxKind.MethodDeclaration]: "method",
  [ts.SyntaxKind.MethodSignature]: "method",
  [ts.SyntaxKind.PropertyDeclaration]: "property",
  [ts.SyntaxKind.PropertySignature]: "property",
  [ts.SyntaxKind.GetAccessor]: "property",
  [ts.SyntaxKind.SetAccessor]: "property",
};

const MODULE_KINDS: Partial<Record<ts.SyntaxKind, string>> = {
  [ts.SyntaxKind.FunctionDeclaration]: "function",
  [ts.SyntaxKind.ClassDeclaration]: "class",
  [ts.SyntaxKind.InterfaceDeclaration]: "interface",
  [ts.SyntaxKind.TypeAliasDeclaration]: "type",
  [ts.SyntaxKind.EnumDeclaration]: "enum",
  [ts.SyntaxKind.ModuleDeclaration]: "namespace",
  [ts.SyntaxKind.VariableDeclaration]: "variable",
};

/** Declaration sites of one file: module-level declarations and members, not locals. */
function declarationSites(path: string, source: ts.SourceFile): Site[] {
  const sites: Site[] = [];
  const add = (name: ts.Node | undefined, kind: string) => {
    if (!name || !ts.isIdentifier(name)) return;
    const offset = name.getStart(source);
    const { line, character } = source.getLineAndCharacterOfPosition(offset);
    sites.push({
      name: name.text,
      kind,
      offset,
      location: { path, line: line + 1, column: character + 1 },
    });
  };
  const visit = (node: ts.Node, inBody: boolean) => {
    const memberKind = MEMBER_KINDS[node.kind];
    const moduleKind = MODULE_KINDS[node.kind];
    if (memberKind) add((node as ts.NamedDeclaration).name, memberKind);
    else if (moduleKind && !inBody) add((node as ts.NamedDeclaration).name, moduleKind);
    // Below a function's body everything is local, except members of classes and types there.
    const body = inBody || ts.isFunctionLike(node) && !ts.isFunctionTypeNode(node);
    ts.forEachChild(node, (child) => visit(child, body));
  };
  visit(source, false);
  return sites;
}

function sampleSites(
  files: Map<string, ts.SourceFile>,
  count: number,
  random: () => number,
): Site[] {
  const byFile = [...files].filter(([path]) => !/\.d\.[cm]?ts$/.test(path))
    .map(([path, source]) => declarationSites(path, source))
    .filter((sites) => sites.length > 0);
  const total = byFile.reduce((sum, sites) => sum + sites.length, 0);
  const chosen = new Set<Site>();
  while (chosen.size < Math.min(count, total)) {
    const sites = byFile[Math.floor(random() * byFile.length)];
    chosen.add(sites[Math.floor(random() * sites.length)]);
  }
  return [...chosen];
}

/** The oracle's answer for one identifier. */
interface Truth {
  site: Site;
  references: Location[];
  declarations: Location[];
  /**
   * The compiler's definition from one of the references: the site's declarations, except
   * where a reference is a declaration of its own (an object literal's member typed by the
   * same property, another class's implementation of the same interface member).
   */
  definitionAt: (reference: Location) => Location[];
}

function locate(
  tree: string,
  sources: Map<string, ts.SourceFile>,
  fileName: string,
  start: number,
): Location | null {
  const path = relative(tree, fileName);
  const source = sources.get(path);
  if (!source) return null; // the compiler's library files, or outside the tree
  const { line, character } = source.getLineAndCharacterOfPosition(start);
  return { path, line: line + 1, column: character + 1 };
}

/**
 * Every declaration of the symbol a definition the compiler answers names: the compiler names one
 * of several (the overload a call resolves to, one block of a merged interface, the import a
 * shorthand property names where every other use lands on the imported original), any of which a
 * definition may land on.
 */
function declarationsOf(
  service: ts.LanguageService,
  entry: ts.DefinitionInfo,
): { fileName: string; start: number }[] {
  const own = { fileName: entry.fileName, start: entry.textSpan.start };
  const program = service.getProgram();
  const source = program?.getSourceFile(entry.fileName);
  if (!program || !source) return [own];
  const node = identifierAt(source, entry.textSpan.start);
  const checker = program.getTypeChecker();
  const symbol = node && checker.getSymbolAtLocation(node);
  if (!symbol) return [own];
  const symbols = [symbol];
  if (symbol.flags & ts.SymbolFlags.Alias) symbols.push(checker.getAliasedSymbol(symbol));
  const found = symbols.flatMap((each) => each.declarations ?? []).map((declaration) => {
    const name = ts.getNameOfDeclaration(declaration) ?? declaration;
    return { fileName: declaration.getSourceFile().fileName, start: name.getStart() };
  });
  return [own, ...found];
}

function identifierAt(source: ts.SourceFile, position: number): ts.Node | null {
  let node: ts.Node = source;
  for (;;) {
    const child: ts.Node | undefined = node.getChildren(source).find((each) =>
      each.getStart(source) <= position && position < each.getEnd()
    );
    if (child === undefined) return node === source ? null : node;
    node = child;
  }
}

function oracle(
  tree: string,
  service: ts.LanguageService,
  sources: Map<string, ts.SourceFile>,
  site: Site,
): Truth | null {
  const fileName = join(tree, site.location.path);
  const found = service.findReferences(fileName, site.offset);
  if (!found) return null;
  const references: Location[] = [];
  const offsets = new Map<string, { fileName: string; start: number }>();
  for (const group of found) {
    for (const entry of group.references) {
      const at = locate(tree, sources, entry.fileName, entry.textSpan.start);
      if (!at) continue;
      references.push(at);
      offsets.set(`${at.path}:${at.line}:${at.column}`, {
        fileName: entry.fileName,
        start: entry.textSpan.start,
      });
    }
  }
  const definitions = (name: string, offset: number) =>
    (service.getDefinitionAtPosition(name, offset) ?? [])
      .flatMap((entry) => declarationsOf(service, entry))
      .map((entry) => locate(tree, sources, entry.fileName, entry.start));
  const inTree = (found: (Location | null)[]) => found.filter((at): at is Location => at !== null);
  const declarations = inTree(definitions(fileName, site.offset));
  if (declarations.length === 0) declarations.push(site.location);
  const definitionAt = (reference: Location) => {
    const at = offsets.get(`${reference.path}:${reference.line}:${reference.column}`);
    const found = at === undefined ? [] : definitions(at.fileName, at.start);
    // A position the compiler answers nothing at keeps the site's declarations; one it answers
    // only outside the tree (a library's property an object literal's member is typed by) has
    // none in the tree to land on: it is not asked.
    if (found.length === 0) return declarations;
    return inTree(found);
  };
  return { site, references, declarations, definitionAt };
}

function escape(name: string): string {
  return name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `git grep -w` at a commit: the floor an agent without a code index has. */
class GitGrepFinder implements ReferenceFinder {
  readonly name = "git grep -w";

  constructor(private readonly tree: string, private readonly commit: string) {}

  private async hits(name: string): Promise<{ location: Location; text: string }[]> {
    const out = await git(this.tree, [
      "grep",
      "-w",
      "-n",
      "--column",
      "-I",
      "-z",
      "-F",
      "-e",
      name,
      this.commit,
    ]);
    const hits: { location: Location; text: string }[] = [];
    // With -z: `COMMIT:PATH\0LINE\0COLUMN\0TEXT\n`.
    for (const record of new TextDecoder().decode(out).split("\n")) {
      const [where, line, column, ...text] = record.split("\0");
      if (text.length === 0) continue;
      hits.push({
        location: {
          path: where.slice(this.commit.length + 1),
          line: Number(line),
          column: Number(column),
        },
        text: text.join("\0"),
      });
    }
    return hits;
  }

  async references(_position: Location, name: string): Promise<Location[]> {
    return (await this.hits(name)).map((hit) => hit.location);
  }

  async definition(_position: Location, name: string): Promise<Location | null> {
    const n = escape(name);
    const keyword = new RegExp(
      `(^|[^\\w$])(function\\*?|class|interface|type|const|let|var|enum|namespace)\\s+${n}(?![\\w$])`,
    );
    const member = new RegExp(
      "^\\s*((public|private|protected|static|readonly|async|abstract|override|declare|get|set)\\s+)*" +
        `${n}\\s*([?!]?\\s*:|[(<=])`,
    );
    const found = (await this.hits(name)).find((hit) =>
      keyword.test(hit.text) || member.test(hit.text)
    );
    return found?.location ?? null;
  }
}

/** The service's MCP `references` tool, every page of it, through the MCP SDK client. */
class ServiceFinder implements ReferenceFinder {
  readonly name = "service references and definition";

  constructor(private readonly client: Client, private readonly repo: string) {}

  private async rows(
    position: Location,
    name: string,
  ): Promise<{ location: Location; roles: string[] }[]> {
    const rows: { location: Location; roles: string[] }[] = [];
    let after: string | undefined;
    for (let page = 0; page < 100; page++) {
      const result = await this.client.callTool({
        name: "references",
        arguments: {
          repo: this.repo,
          path: position.path,
          line: position.line,
          // At the site's column: the name alone names the line's first occurrence of it, which
          // may be another symbol (`({ id }: { id: number })`).
          ...(position.column > 0 ? { column: position.column } : { symbol: name }),
          max_bytes: 262144,
          ...(after === undefined ? {} : { after }),
        },
      });
      const text = (result.content as { type: string; text: string }[])[0]?.text ?? "";
      if (result.isError) return rows;
      let path = "";
      for (const line of text.split("\n")) {
        const file = /^File: (".*")$/.exec(line);
        if (file) path = JSON.parse(file[1]);
        const row = /^(\d+) \[([a-z,]+)\]: /.exec(line);
        if (row) {
          rows.push({
            location: { path, line: Number(row[1]), column: 1 },
            roles: row[2].split(","),
          });
        }
      }
      const next = /^NextCursor: (".*")$/m.exec(text);
      if (!next) break;
      after = JSON.parse(next[1]);
    }
    return rows;
  }

  async references(position: Location, name: string): Promise<Location[]> {
    return (await this.rows(position, name)).map((row) => row.location);
  }

  async definition(position: Location, _name: string): Promise<Location | null> {
    const result = await this.client.callTool({
      name: "definition",
      arguments: {
        repo: this.repo,
        path: position.path,
        line: position.line,
        column: position.column,
      },
    });
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? "";
    const found = /^Definition: "(.*):(\d+)";/m.exec(text);
    if (result.isError || !found) return null;
    return { path: found[1], line: Number(found[2]), column: 1 };
  }
}

interface TreeResult {
  tree: string;
  commit: string;
  files: number;
  identifiers: number;
  skipped: number;
  precision: number;
  recall: number;
  definitionShare: number;
  definitionPositions: number;
  referencesMs: number[];
  definitionMs: number[];
  oracleMs: number;
  byKind: Map<string, ReferenceScore[]>;
  /** One line per identifier whose answer was not exact, worst precision first. */
  misses: string[];
  /** One line per identifier whose definition was missed from some position. */
  definitionMisses: string[];
}

/** Identifiers not answered exactly, for `--dump`: one JSON line each. */
const dumped: string[] = [];

function lineKeys(locations: Location[]): Set<string> {
  return new Set(locations.map((location) => `${location.path}:${location.line}`));
}

function dumpLine(finder: string, truth: Truth, answer: Location[]): void {
  const truthLines = lineKeys(truth.references);
  const answered = lineKeys(answer);
  const missed = [...truthLines].filter((line) => !answered.has(line));
  const wrong = [...answered].filter((line) => !truthLines.has(line));
  if (missed.length === 0 && wrong.length === 0) return;
  const { site } = truth;
  dumped.push(
    JSON.stringify({
      finder,
      kind: site.kind,
      name: site.name,
      site: site.location,
      missed,
      wrong,
    }),
  );
}

/** Scores one finder against the oracle's answers. */
async function measure(
  truths: Truth[],
  finder: ReferenceFinder,
  options: { positions: number; random: () => number },
): Promise<
  Pick<
    TreeResult,
    | "precision"
    | "recall"
    | "definitionShare"
    | "definitionPositions"
    | "referencesMs"
    | "definitionMs"
    | "byKind"
    | "misses"
    | "definitionMisses"
  >
> {
  const scores: ReferenceScore[] = [];
  const byKind = new Map<string, ReferenceScore[]>();
  const referencesMs: number[] = [];
  const definitionMs: number[] = [];
  const outcomes: boolean[] = [];
  const misses: [number, string][] = [];
  const definitionMisses = new Set<string>();
  const at = (location: Location | null) =>
    location ? `${location.path}:${location.line}` : "nothing";
  for (const truth of truths) {
    const { site } = truth;
    let started = performance.now();
    const answer = await finder.references(truth.site.location, truth.site.name);
    referencesMs.push(performance.now() - started);
    const score = scoreReferences(truth.references, answer);
    dumpLine(finder.name, truth, answer);
    scores.push(score);
    byKind.set(truth.site.kind, [...byKind.get(truth.site.kind) ?? [], score]);
    const positions = [...truth.references];
    for (let i = 0; i < Math.min(options.positions, positions.length); i++) {
      const j = i + Math.floor(options.random() * (positions.length - i));
      [positions[i], positions[j]] = [positions[j], positions[i]];
      const expected = truth.definitionAt(positions[i]);
      if (expected.length === 0) continue;
      started = performance.now();
      const definition = await finder.definition(positions[i], truth.site.name);
      definitionMs.push(performance.now() - started);
      const hit = definitionHit(expected, definition);
      outcomes.push(hit);
      if (!hit) {
        dumped.push(JSON.stringify({
          finder: finder.name,
          definitionMiss: true,
          kind: site.kind,
          name: site.name,
          asked: positions[i],
          expected: expected.map(at),
          answered: at(definition),
        }));
        definitionMisses.add(
          `${site.kind} ${site.name} (${at(expected[0])}): answered ${at(definition)}`,
        );
      }
    }
    if (score.precision < 1 || score.recall < 1) {
      misses.push([
        score.precision,
        `${site.kind} ${site.name} (${at(site.location)}): ${score.hits} of ${score.truthLines} ` +
        `true lines in ${score.answerLines} answered`,
      ]);
    }
  }
  const { precision, recall } = macroAverage(scores);
  return {
    precision,
    recall,
    definitionShare: share(outcomes),
    definitionPositions: outcomes.length,
    referencesMs,
    definitionMs,
    byKind,
    misses: misses.sort(([a], [b]) => a - b).map(([, line]) => line),
    definitionMisses: [...definitionMisses],
  };
}

async function measureTree(
  tree: string,
  options: { sample: number; seed: number; positions: number },
  makeFinder: (tree: string, commit: string) => ReferenceFinder,
): Promise<TreeResult> {
  const commit = new TextDecoder().decode(await git(tree, ["rev-parse", "HEAD"])).trim();
  const files = await typescriptFiles(tree, commit);
  const service = languageService(tree, files, await pathMapping(tree, commit));
  const program = service.getProgram();
  if (!program) throw new Error(`no program for ${tree}`);
  const sources = new Map<string, ts.SourceFile>();
  for (const path of files.keys()) {
    const source = program.getSourceFile(join(tree, path));
    if (source) sources.set(path, source);
  }
  const random = prng(options.seed);
  const sites = sampleSites(sources, options.sample, random);
  const started = performance.now();
  const truths: Truth[] = [];
  let skipped = 0;
  for (const site of sites) {
    const truth = oracle(tree, service, sources, site);
    if (truth && truth.references.length > 0) truths.push(truth);
    else skipped++;
  }
  const oracleMs = performance.now() - started;
  const finder = makeFinder(tree, commit);
  const scored = await measure(truths, finder, { positions: options.positions, random });
  return {
    tree,
    commit,
    files: files.size,
    identifiers: truths.length,
    skipped,
    oracleMs,
    ...scored,
  };
}

function machine(): string {
  const gib = totalmem() / 1024 ** 3;
  return `${cpus().length} cores, ${cpus()[0]?.model ?? "?"}, ${gib.toFixed(0)} GiB, ` +
    `Deno ${Deno.version.deno}, typescript ${ts.version}`;
}

function print(
  results: TreeResult[],
  options: { seed: number; sample: number; misses: number },
): void {
  const { seed, sample } = options;
  const ms = (values: number[]) =>
    values.length === 0
      ? "-"
      : `${percentile(values, 50).toFixed(1)} / ${percentile(values, 95).toFixed(1)}`;
  console.log(
    `command: deno run ... tests/bench/references_quality_bench.ts ${Deno.args.join(" ")}`,
  );
  console.log(`machine: ${machine()}`);
  console.log(`date: ${new Date().toISOString()}; seed ${seed}, sample ${sample} per tree`);
  console.log(
    "\n| tree | commit | TS files | identifiers | macro precision | macro recall | definition share " +
      "(positions) | references ms p50 / p95 | definition ms p50 / p95 | oracle s |",
  );
  console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of results) {
    console.log(
      `| ${r.tree} | ${r.commit.slice(0, 10)} | ${r.files} | ${r.identifiers}` +
        `${r.skipped ? ` (${r.skipped} without references left out)` : ""} | ${
          r.precision.toFixed(3)
        } | ` +
        `${r.recall.toFixed(3)} | ${r.definitionShare.toFixed(3)} (${r.definitionPositions}) | ` +
        `${ms(r.referencesMs)} | ${ms(r.definitionMs)} | ${(r.oracleMs / 1000).toFixed(1)} |`,
    );
  }
  console.log("\nby declaration kind (identifiers, macro precision, macro recall):\n");
  console.log("| tree | kind | identifiers | macro precision | macro recall |");
  console.log("|---|---|---:|---:|---:|");
  const members = new Set(Object.values(MEMBER_KINDS));
  for (const r of results) {
    const row = (label: string, scores: ReferenceScore[]) => {
      const { precision, recall } = macroAverage(scores);
      console.log(
        `| ${r.tree} | ${label} | ${scores.length} | ${precision.toFixed(3)} | ` +
          `${recall.toFixed(3)} |`,
      );
    };
    const byKind = [...r.byKind].sort(([, a], [, b]) => b.length - a.length);
    for (const [kind, scores] of byKind) row(kind, scores);
    row("module level, all kinds", byKind.flatMap(([k, v]) => members.has(k) ? [] : v));
    row("members, all kinds", byKind.flatMap(([k, v]) => members.has(k) ? v : []));
  }
  if (options.misses === 0) return;
  for (const r of results) {
    console.log(`\n${r.tree}: references not exact (${r.misses.length})`);
    for (const line of r.misses.slice(0, options.misses)) console.log(`  ${line}`);
    console.log(`${r.tree}: definitions missed (${r.definitionMisses.length} identifiers)`);
    for (const line of r.definitionMisses.slice(0, options.misses)) console.log(`  ${line}`);
  }
}

if (import.meta.main) {
  const opts = options(Deno.args);
  if (opts.baseline) {
    console.log(
      `finder: git grep -w -n --column -I -F (baseline); oracle: typescript ${ts.version}`,
    );
  }
  const results: TreeResult[] = [];
  const grep = (tree: string, commit: string) => new GitGrepFinder(tree, commit);
  if (opts.baseline) {
    for (const tree of opts.trees) results.push(await measureTree(tree, opts, grep));
    print(results, opts);
  }
  if (opts.service !== null) {
    const client = new Client({ name: "references-quality-bench", version: "0.1.0" });
    const token = Deno.env.get("SOURCEGRAPH_TOKEN");
    await client.connect(
      new StreamableHTTPClientTransport(new URL(opts.service), {
        requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : undefined,
      }),
    );
    try {
      console.log(
        `\nfinder: the service's MCP references and definition tools at ${opts.service} (same seed)`,
      );
      const served: TreeResult[] = [];
      for (const tree of opts.trees) {
        const repo = opts.serviceRepo ?? `local/${basename(tree)}`;
        served.push(await measureTree(tree, opts, () => new ServiceFinder(client, repo)));
      }
      print(served, opts);
    } finally {
      await client.close();
    }
  }
  if (opts.dump !== null) {
    await Deno.writeTextFile(
      opts.dump,
      dumped.map((line) => line + "\n").join(""),
    );
  }
}
