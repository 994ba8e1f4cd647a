/**
 * Precision and recall of search-based `references` (and whether
 * `definition` from a use lands on the declaration) on a hand-checked
 * sample of a tree in a language other than TypeScript. The sample
 * (`references/git_c_sample.json` by default) names each identifier, the
 * line of its declaration, and its true references at line granularity
 * (every `git grep -n -w NAME` hit read and judged by hand: code that
 * refers to that declaration, not a comment, a string, another scope's
 * local or another file's own declaration of the name).
 *
 * For each identifier: `git grep -n -w -I NAME HEAD` (the floor: every
 * whole-word line), and each `--service` given (MCP endpoint base URLs
 * serving the tree as `--repo`), every row of every page of `references`
 * asked from the declaration's line with `symbol` set; then `definition`
 * asked from up to `--definition-positions` true reference lines other
 * than the declaration's. A refused question counts as no rows answered.
 * Each service first answers the first identifier
 * once, unscored (its parsing worker loads its grammars on its first
 * files). Precision and recall are macro-averaged over
 * the identifiers; a finder answering nothing has precision 1 by
 * convention.
 *
 * Run: deno run --config deno.dev.json --allow-read --allow-run=git --allow-net=127.0.0.1 \
 *   tests/bench/references_scopes_bench.ts --tree PATH [--sample FILE] [--repo local/git] \
 *   [--service URL]... [--definition-positions K]
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

interface SampleItem {
  name: string;
  kind: string;
  path: string;
  line: number;
  truth: string[];
}

interface Score {
  precision: number;
  recall: number;
  found: number;
}

function score(found: ReadonlySet<string>, truth: ReadonlySet<string>): Score {
  const hits = [...found].filter((place) => truth.has(place)).length;
  return {
    precision: found.size === 0 ? 1 : hits / found.size,
    recall: truth.size === 0 ? 1 : hits / truth.size,
    found: found.size,
  };
}

async function gitGrep(tree: string, name: string): Promise<Set<string>> {
  const output = await new Deno.Command("git", {
    args: ["-C", tree, "grep", "-n", "-w", "-I", "-F", "-e", name, "HEAD"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const lines = new TextDecoder().decode(output.stdout).split("\n").filter((line) => line !== "");
  return new Set(lines.map((line) => {
    const [, path, number] = /^HEAD:([^:]+):(\d+):/.exec(line) ?? [];
    return `${path}:${number}`;
  }));
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "references-scopes-bench", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/sourcegraph/mcp`)));
  return client;
}

async function serviceReferences(
  client: Client,
  at: { repo: string; item: SampleItem },
): Promise<{ places: Set<string>; header: string }> {
  const places = new Set<string>();
  let after: string | undefined;
  let header = "";
  for (let page = 0; page < 50; page++) {
    const { item, repo } = at;
    const args: Record<string, unknown> = {
      repo,
      path: item.path,
      line: item.line,
      symbol: item.name,
      max_bytes: 60_000,
      ...(after === undefined ? {} : { after }),
    };
    const answer = await client.callTool({ name: "references", arguments: args });
    // A refusal (a service that cannot take the name on that line) answers no rows.
    const structured = (answer.structuredContent ?? {}) as {
      references?: { path: string; line: number }[];
      next_cursor?: string;
    };
    if (page === 0) {
      const text = (answer.content as { text: string }[])[0]?.text ?? "";
      header = /^(Resolved|Scopes resolved|Every identifier)[^\n]*/m.exec(text)?.[0] ?? "";
    }
    for (const row of structured.references ?? []) places.add(`${row.path}:${row.line}`);
    after = structured.next_cursor;
    if (after === undefined) break;
  }
  return { places, header };
}

async function serviceDefinition(
  client: Client,
  at: { repo: string; name: string; place: string },
): Promise<string | null> {
  const [path, line] = at.place.split(":");
  const answer = await client.callTool({
    name: "definition",
    arguments: { repo: at.repo, path, line: Number(line), symbol: at.name },
  });
  const found = (answer.structuredContent as { definition?: { path: string; line: number } | null })
    ?.definition;
  return found ? `${found.path}:${found.line}` : null;
}

function options(): { tree: string; sample: string; repo: string; services: string[]; k: number } {
  const args = Deno.args;
  const value = (flag: string) => {
    const at = args.indexOf(flag);
    return at === -1 ? undefined : args[at + 1];
  };
  const services = args.flatMap((arg, i) => arg === "--service" ? [args[i + 1]] : []);
  const tree = value("--tree");
  if (tree === undefined) throw new Error("usage: --tree PATH [--sample FILE] [--service URL]...");
  return {
    tree,
    sample: value("--sample") ??
      new URL("./references/git_c_sample.json", import.meta.url).pathname,
    repo: value("--repo") ?? "local/git",
    services,
    k: Number(value("--definition-positions") ?? 3),
  };
}

function percent(value: number): string {
  return `${(100 * value).toFixed(0)}%`;
}

function average(scores: Score[], key: "precision" | "recall"): number {
  return scores.reduce((sum, one) => sum + one[key], 0) / Math.max(1, scores.length);
}

async function main(): Promise<void> {
  const { tree, sample, repo, services, k } = options();
  const items = (JSON.parse(await Deno.readTextFile(sample)) as { items: SampleItem[] }).items;
  const clients = await Promise.all(services.map(connect));
  // One answer first, not scored: a service's parsing worker loads its grammars on its first
  // files, which a busy machine can make miss their parse deadline.
  for (const client of clients) await serviceReferences(client, { repo, item: items[0] });
  const grepScores: Score[] = [];
  const serviceScores: Score[][] = services.map(() => []);
  const definitions = services.map(() => ({ asked: 0, landed: 0 }));
  const head = ["name", "kind", "true", "git grep -w P/R", ...services.map((s) => `${s} P/R`)];
  console.log(`| ${head.join(" | ")} |\n|${head.map(() => "---").join("|")}|`);
  for (const item of items) {
    const truth = new Set(item.truth);
    const grep = score(await gitGrep(tree, item.name), truth);
    grepScores.push(grep);
    const cells = [`\`${item.name}\` ${item.path}:${item.line}`, item.kind, String(truth.size)];
    cells.push(`${percent(grep.precision)} / ${percent(grep.recall)} (${grep.found})`);
    for (const [i, client] of clients.entries()) {
      const { places } = await serviceReferences(client, { repo, item });
      const found = score(places, truth);
      serviceScores[i].push(found);
      cells.push(`${percent(found.precision)} / ${percent(found.recall)} (${found.found})`);
      const own = `${item.path}:${item.line}`;
      for (const place of item.truth.filter((place) => place !== own).slice(0, k)) {
        definitions[i].asked++;
        const landed = await serviceDefinition(client, { repo, name: item.name, place });
        if (landed === own) definitions[i].landed++;
      }
    }
    console.log(`| ${cells.join(" | ")} |`);
  }
  const total = [`**macro average** (${items.length} names)`, "", "", ""];
  total[3] = `${percent(average(grepScores, "precision"))} / ${
    percent(average(grepScores, "recall"))
  }`;
  for (const scores of serviceScores) {
    total.push(`${percent(average(scores, "precision"))} / ${percent(average(scores, "recall"))}`);
  }
  console.log(`| ${total.join(" | ")} |`);
  for (const [i, url] of services.entries()) {
    const { asked, landed } = definitions[i];
    console.log(`definition from a use, ${url}: ${landed}/${asked} on the declaration`);
  }
  await Promise.all(clients.map((client: Client) => client.close()));
}

if (import.meta.main) await main();
