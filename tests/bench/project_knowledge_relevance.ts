/**
 * Relevance benchmark of project_knowledge search, side by side in the same
 * run with plain FTS5 (the unicode61 tokenizer over the raw text, BM25, the
 * same chunks). Query sets are generated deterministically from real trees
 * (the Git project's source tree, `--corpus PATH`, without its `t/` test
 * folder, whose shell tests would dominate the phrase set; and this
 * checkout), in families of
 * what agents type:
 *
 * - exact identifier: a name defined in exactly one file (`strbuf_addf`,
 *   `parseHttpRequest`); the relevant file is the one defining it;
 * - identifier as lower-case words: its parts, lower-cased (`strbuf addf`);
 * - partial identifier: its parts without the first (`HttpRequest`), kept
 *   only when no other defined name holds that part sequence;
 * - phrase with one specific word: three or four words around a word found
 *   in at most two files, from prose (Markdown, AsciiDoc, text), kept only
 *   when exactly one file holds the phrase;
 * - Chinese: neither tree has Chinese prose, so a Chinese Markdown set is
 *   generated (documents of technical-vocabulary sentences); a query is two
 *   or three consecutive words found in exactly one document.
 *
 * A query's hits are taken as the provider returns them (limit 5; a file may
 * hold several). MRR@5 is the mean of 1/rank of the first hit in the relevant
 * file (0 when none of the 5 is), recall@5 the share of queries with one. The
 * provider runs as a real subprocess with the README's flags, driven by the
 * fake Runner.
 *
 * Run: deno run --allow-read --allow-write --allow-run --allow-env --allow-sys=uid \
 *   tests/bench/project_knowledge_relevance.ts [--corpus PATH] [--per-family 100]
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { chunkSource } from "../../project_knowledge/index/chunking.ts";
import { INDEXED_EXTENSIONS } from "../../project_knowledge/project/eligibility.ts";
import { percentile, prng } from "../support/bench_stats.ts";
import { FakeRunner } from "../support/fake_runner.ts";
import { git, removeDir, tempDir } from "../support/git_repo.ts";

const args = Deno.args;
const TARBALL = args.includes("--corpus")
  ? args[args.indexOf("--corpus") + 1]
  : new URL("../../../shared/corpora/git-1a3e64c6c4.tar.gz", import.meta.url).pathname;
const PER_FAMILY = Number(args[args.indexOf("--per-family") + 1] ?? 100) || 100;
const VERBOSE = args.includes("--verbose");
const CHECKOUT = new URL("../..", import.meta.url).pathname;
const LIMIT = 5;

type Family =
  | "exact identifier"
  | "identifier as words"
  | "partial identifier"
  | "phrase"
  | "Chinese";
const FAMILIES: Family[] = [
  "exact identifier",
  "identifier as words",
  "partial identifier",
  "phrase",
  "Chinese",
];

interface Query {
  family: Family;
  text: string;
  relevant: string;
}

function sample<T>(items: T[], count: number, seed: number): T[] {
  const rand = prng(seed);
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, count);
}

const isIndexed = (path: string) =>
  INDEXED_EXTENSIONS.has(path.slice(path.lastIndexOf(".") + 1).toLowerCase());

/** Identifier parts in their original case: `parseHTTPRequest` → parse, HTTP, Request. */
function parts(name: string): string[] {
  return name.split(/[_\-]+/).flatMap((piece) =>
    piece.match(/[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+/g) ?? []
  );
}

/** Names defined in a file: functions, types, classes, structs (C, TypeScript/JavaScript). */
function definitions(path: string, text: string): string[] {
  const names: string[] = [];
  const lines = text.split("\n");
  if (/\.(c|h)$/.test(path)) {
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      const fn = /^[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*\([^;]*$/.exec(line);
      if (fn && !line.startsWith("#") && (lines[i + 1] ?? "").startsWith("{")) names.push(fn[1]);
      const type = /^(?:struct|enum|union) ([A-Za-z_]\w*) \{/.exec(line);
      if (type) names.push(type[1]);
    }
  } else if (/\.(ts|tsx|js|mjs)$/.test(path)) {
    for (const line of lines) {
      const match =
        /^export (?:default )?(?:async )?(?:function\*?|class|abstract class|interface|type|const|enum) ([A-Za-z_$][\w$]*)/
          .exec(line);
      if (match) names.push(match[1]);
    }
  }
  return names;
}

function identifierQueries(files: Map<string, string>, seed: number): Query[] {
  const definedIn = new Map<string, Set<string>>();
  for (const [path, text] of files) {
    for (const name of definitions(path, text)) {
      if (!definedIn.has(name)) definedIn.set(name, new Set());
      definedIn.get(name)!.add(path);
    }
  }
  const unique = [...definedIn].filter(([name, paths]) =>
    paths.size === 1 && parts(name).length >= 2
  )
    .map(([name, paths]) => ({ name, path: [...paths][0] }))
    .sort((a, b) => a.name < b.name ? -1 : 1);
  const lowerParts = new Map(
    [...definedIn.keys()].map((name) => [name, parts(name).map((p) => p.toLowerCase())]),
  );
  const queries: Query[] = [];
  for (const { name, path } of sample(unique, PER_FAMILY, seed)) {
    queries.push({ family: "exact identifier", text: name, relevant: path });
  }
  for (const { name, path } of sample(unique, PER_FAMILY, seed + 1)) {
    queries.push({
      family: "identifier as words",
      text: parts(name).map((part) => part.toLowerCase()).join(" "),
      relevant: path,
    });
  }
  const partials: Query[] = [];
  for (
    const { name, path } of sample(
      unique.filter((u) => parts(u.name).length >= 3),
      unique.length,
      seed + 2,
    )
  ) {
    const own = parts(name);
    const tail = own.slice(1).map((part) => part.toLowerCase());
    const holders = [...lowerParts.values()].filter((other) =>
      other.some((_, i) => tail.every((part, j) => other[i + j] === part))
    );
    if (holders.length !== 1) continue;
    const text = name.includes("_")
      ? own.slice(1).join("_")
      : name.slice(name.indexOf(own[1], own[0].length));
    partials.push({ family: "partial identifier", text, relevant: path });
    if (partials.length === PER_FAMILY) break;
  }
  return [...queries, ...partials];
}

function phraseQueries(files: Map<string, string>, seed: number): Query[] {
  const prose = [...files].filter(([path]) => /\.(md|adoc|txt)$/i.test(path));
  const documentFrequency = new Map<string, number>();
  for (const [, text] of prose) {
    for (const word of new Set(text.toLowerCase().match(/[a-z]{3,}/g) ?? [])) {
      documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
    }
  }
  // Text as words only: a phrase holds where its words follow each other.
  const words = (text: string) => text.toLowerCase().match(/[a-z']+/g) ?? [];
  const normalized = new Map(prose.map(([path, text]) => [path, ` ${words(text).join(" ")} `]));
  const rand = prng(seed);
  const queries: Query[] = [];
  for (const [path, text] of sample(prose, prose.length, seed)) {
    const lines = text.split("\n").filter((line) => words(line).length >= 6);
    for (let attempt = 0; attempt < 3 && lines.length > 0; attempt++) {
      const line = words(lines[Math.floor(rand() * lines.length)]);
      const specific = line.findIndex((word) =>
        word.length >= 7 && (documentFrequency.get(word) ?? 99) <= 2
      );
      if (specific === -1) continue;
      const length = 3 + Math.floor(rand() * 2);
      const start = Math.max(0, Math.min(specific - 1, line.length - length));
      const phrase = line.slice(start, start + length).join(" ");
      const holders = [...normalized].filter(([, t]) => t.includes(` ${phrase} `));
      if (holders.length !== 1 || holders[0][0] !== path) continue;
      queries.push({ family: "phrase", text: phrase, relevant: path });
      break;
    }
    if (queries.length === PER_FAMILY) break;
  }
  return queries;
}

// Technical vocabulary for the generated Chinese documents.
const CHINESE_WORDS = (
  "配置 服务器 缓存 索引 查询 仓库 提交 分支 合并 冲突 权限 令牌 会话 日志 错误 超时 重试 部署 测试 构建 " +
  "发布 版本 依赖 模块 接口 函数 参数 返回 数据 文件 目录 路径 编码 解码 压缩 加密 签名 证书 网络 请求 " +
  "响应 连接 端口 协议 代理 负载 均衡 集群 节点 副本 同步 异步 队列 消息 事件 回调 线程 进程 内存 磁盘 " +
  "性能 监控 告警 指标 追踪 采样 用户 角色 策略 审计 备份 恢复 迁移 升级 回滚 灰度 开关 流量 限流 熔断 " +
  "降级 容量 规划 文档 示例 教程 规范 约定 评审 合规 安全 漏洞 补丁 扫描 隔离 沙箱 插件 扩展 搜索 排序"
).split(" ");

async function chineseCorpus(
  dir: string,
  seed: number,
): Promise<{ files: Map<string, string>; queries: Query[] }> {
  const rand = prng(seed);
  const pick = () => CHINESE_WORDS[Math.floor(rand() * CHINESE_WORDS.length)];
  const files = new Map<string, string>();
  for (let doc = 0; doc < 150; doc++) {
    const sentences: string[] = [];
    for (let s = 0; s < 20; s++) {
      sentences.push(Array.from({ length: 4 + Math.floor(rand() * 5) }, pick).join("") + "。");
    }
    const path = `docs/zh/doc${String(doc).padStart(3, "0")}.md`;
    const text = `# 文档 ${doc}\n\n${sentences.join("\n")}\n`;
    files.set(path, text);
    await Deno.mkdir(join(dir, "docs/zh"), { recursive: true });
    await Deno.writeTextFile(join(dir, path), text);
  }
  const queries: Query[] = [];
  for (const [path, text] of sample([...files], files.size, seed + 1)) {
    const lines = text.split("\n").filter((line) => line.endsWith("。"));
    const line = lines[Math.floor(rand() * lines.length)].slice(0, -1);
    const words = Math.floor(rand() * 2) + 2;
    const start = Math.floor(rand() * Math.max(1, line.length / 2 - words)) * 2;
    const phrase = line.slice(start, start + words * 2);
    if (phrase.length < 4) continue;
    const holders = [...files].filter(([, t]) => t.includes(phrase));
    if (holders.length !== 1) continue;
    queries.push({ family: "Chinese", text: phrase, relevant: path });
    if (queries.length === PER_FAMILY) break;
  }
  return { files, queries };
}

/** Plain FTS5 over the same chunks: unicode61 on the raw text, BM25, query words OR'ed. */
function plainFts(files: Map<string, string>): (query: string) => string[] {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE VIRTUAL TABLE chunks USING fts5(path UNINDEXED, body, tokenize='unicode61')");
  const insert = db.prepare("INSERT INTO chunks(path, body) VALUES (?, ?)");
  db.exec("BEGIN");
  for (const [path, text] of files) {
    for (const chunk of chunkSource(text).chunks) insert.run(path, chunk.text);
  }
  db.exec("COMMIT");
  const search = db.prepare("SELECT path FROM chunks WHERE chunks MATCH ? ORDER BY rank LIMIT ?");
  return (query) => {
    const tokens = query.match(/[\p{L}\p{N}_]+/gu) ?? [];
    if (tokens.length === 0) return [];
    const match = tokens.map((token) => `"${token}"`).join(" OR ");
    return (search.all(match, LIMIT) as { path: string }[]).map((row) => row.path);
  };
}

interface Scores {
  reciprocal: number;
  found: number;
  count: number;
}

function score(ranked: string[], relevant: string, into: Scores): void {
  const rank = ranked.slice(0, LIMIT).indexOf(relevant);
  into.count++;
  if (rank !== -1) {
    into.reciprocal += 1 / (rank + 1);
    into.found++;
  }
}

async function collect(dir: string, paths: string[]): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const path of paths) {
    if (!isIndexed(path)) continue;
    try {
      const text = new TextDecoder("utf-8", { fatal: true }).decode(
        await Deno.readFile(join(dir, path)),
      );
      if (!text.includes("\0")) files.set(path, text);
    } catch {
      // binary or not UTF-8: not indexed
    }
  }
  return files;
}

async function run(
  label: string,
  repo: string,
  files: Map<string, string>,
  queries: Query[],
  parent: string,
) {
  await git(repo, ["add", "-A"]);
  await git(repo, [
    "-c",
    "user.name=bench",
    "-c",
    "user.email=bench@example.org",
    "commit",
    "-qm",
    "corpus",
  ]);
  const cacheBase = join(parent, `cache-${label.replace(/\W+/g, "-")}`);
  await Deno.mkdir(cacheBase, { recursive: true });
  const runner = await FakeRunner.admit({ cwd: repo, cacheBase, home: parent });
  try {
    const started = performance.now();
    const built = await runner.ok("index");
    console.log(
      `\n(${label}) ${files.size} files; index ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s, ` +
        `${JSON.stringify(built.coverage ?? built).slice(0, 160)}`,
    );
    const baseline = plainFts(files);
    const ours = new Map<Family, Scores>();
    const plain = new Map<Family, Scores>();
    const times: number[] = [];
    for (const query of queries) {
      const t = performance.now();
      const result = await runner.ok("search", { query: query.text, limit: LIMIT });
      times.push(performance.now() - t);
      const ranked = (result.hits as { path: string }[]).map((hit) => hit.path);
      if (!ours.has(query.family)) ours.set(query.family, { reciprocal: 0, found: 0, count: 0 });
      if (!plain.has(query.family)) plain.set(query.family, { reciprocal: 0, found: 0, count: 0 });
      score(ranked, query.relevant, ours.get(query.family)!);
      if (VERBOSE && !ranked.slice(0, LIMIT).includes(query.relevant)) {
        console.log(
          `  miss (${query.family}) ${JSON.stringify(query.text)} → ${query.relevant}; got ${
            ranked.join(", ")
          }`,
        );
      }
      score(baseline(query.text), query.relevant, plain.get(query.family)!);
    }
    return { ours, plain, times };
  } finally {
    await runner.kill();
  }
}

function report(
  results: { ours: Map<Family, Scores>; plain: Map<Family, Scores> }[],
  times: number[],
) {
  const total = (scores: Map<Family, Scores>[], family: Family | null) => {
    const sum = { reciprocal: 0, found: 0, count: 0 };
    for (const map of scores) {
      for (const [name, value] of map) {
        if (family !== null && name !== family) continue;
        sum.reciprocal += value.reciprocal;
        sum.found += value.found;
        sum.count += value.count;
      }
    }
    return sum;
  };
  console.log("\n| family | queries | MRR@5 | recall@5 | plain FTS5 MRR@5 | plain FTS5 recall@5 |");
  console.log("| ------ | ------- | ----- | -------- | ---------------- | ------------------- |");
  for (const family of [...FAMILIES, null]) {
    const a = total(results.map((r) => r.ours), family);
    const b = total(results.map((r) => r.plain), family);
    if (a.count === 0) continue;
    console.log(
      `| ${family ?? "all"} | ${a.count} | ${(a.reciprocal / a.count).toFixed(3)} | ${
        (a.found / a.count).toFixed(3)
      } | ${(b.reciprocal / b.count).toFixed(3)} | ${(b.found / b.count).toFixed(3)} |`,
    );
  }
  console.log(
    `\nsearch p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${
      percentile(times, 95).toFixed(1)
    } ms (${times.length} searches)`,
  );
}

const parent = await tempDir("pk-relevance-");
try {
  const results = [];
  const times: number[] = [];
  // (a) The Git source tree without its t/ test scripts.
  const gitRepo = join(parent, "git");
  await new Deno.Command("tar", { args: ["-xzf", TARBALL, "-C", parent] }).output();
  await Deno.remove(join(gitRepo, "t"), { recursive: true });
  await git(gitRepo, ["init", "-q", "-b", "main"]);
  const gitPaths = (await git(gitRepo, ["ls-files", "--others", "--exclude-standard"])).split("\n");
  const gitFiles = await collect(gitRepo, gitPaths);
  const gitQueries = [...identifierQueries(gitFiles, 11), ...phraseQueries(gitFiles, 13)];
  const a = await run("a: Git source tree", gitRepo, gitFiles, gitQueries, parent);
  results.push(a);
  times.push(...a.times);
  // (b) This checkout, with the generated Chinese documents beside it.
  const selfRepo = join(parent, "self");
  await Deno.mkdir(selfRepo);
  const selfPaths = (await git(CHECKOUT, ["ls-files"])).split("\n").filter((path) =>
    isIndexed(path) && !path.startsWith("tests/fixtures/")
  );
  for (const path of selfPaths) {
    await Deno.mkdir(join(selfRepo, path, ".."), { recursive: true });
    await Deno.copyFile(join(CHECKOUT, path), join(selfRepo, path));
  }
  await git(selfRepo, ["init", "-q", "-b", "main"]);
  const selfFiles = await collect(selfRepo, selfPaths);
  const chinese = await chineseCorpus(selfRepo, 17);
  for (const [path, text] of chinese.files) selfFiles.set(path, text);
  const selfQueries = [
    ...identifierQueries(selfFiles, 19),
    ...phraseQueries(selfFiles, 23),
    ...chinese.queries,
  ];
  const b = await run(
    "b: this checkout + generated Chinese documents",
    selfRepo,
    selfFiles,
    selfQueries,
    parent,
  );
  results.push(b);
  times.push(...b.times);
  for (const [label, result] of [["a", a], ["b", b]] as const) {
    console.log(`\n(${label})`);
    report([result], result.times);
  }
  console.log("\n(all)");
  report(results, times);
} finally {
  await removeDir(parent);
}
