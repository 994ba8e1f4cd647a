/**
 * An agent-style run: how many MCP calls an agent needs per question with a
 * server's tool list. An agent (a person or a model) answers a fixed list of
 * questions about one repository using only this command line, which logs
 * every call; `summary` counts the calls per question. Comparing two tool
 * lists means two runs (or more: agents vary) with the same questions.
 *
 * ```sh
 * export RUN_URL=http://127.0.0.1:8787/sourcegraph/mcp RUN_LOG=/tmp/run1.log [RUN_TOKEN=...]
 * deno run --allow-net=127.0.0.1 --allow-env --allow-read --allow-write=/tmp tests/bench/agent_calls.ts list
 * deno run ... tests/bench/agent_calls.ts mark Q1
 * deno run ... tests/bench/agent_calls.ts call search '{"repo":"local/git","pattern":"strbuf_addchars"}'
 * deno run ... tests/bench/agent_calls.ts summary /tmp/run1.log
 * ```
 *
 * The questions used on the Git project's source tree (git/git at 1a3e64c6c4, served as
 * `local/git`), each marked `Qn` before its first call:
 * 1. Where is the function `strbuf_addchars` defined (file and line), and what are its parameters?
 * 2. List every file that calls `lazy_init_name_hash` (not where it is defined or declared).
 * 3. In `negotiator/default.c`, on which lines is the static function `get_rev` of that file called?
 * 4. Where is the macro `ALLOC_GROW_BY` defined, and in how many files is it used?
 * 5. Which function parses the configuration variable `core.bigFileThreshold`? Its file and name.
 * 6. What files and folders are directly inside the `refs/` folder of the repository?
 * 7. What does `cache_tree_free` do? Its file, and the type of the thing it frees.
 * 8. Which file defines `struct bitmap` (the EWAH one), and what are its fields?
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [command, ...rest] = Deno.args;

if (command === "summary") {
  console.log(summary(await Deno.readTextFile(rest[0])));
} else if (command === "mark") {
  await record(`MARK ${rest.join(" ")}`);
} else if (command === "list" || command === "call") {
  await talk(command, rest);
} else {
  console.error("usage: list | call TOOL 'JSON-ARGUMENTS' | mark LABEL | summary LOG");
  Deno.exit(2);
}

// One line of the run's log: when, and what.
async function record(line: string): Promise<void> {
  const log = Deno.env.get("RUN_LOG");
  if (!log) throw new Error("RUN_LOG names the run's log file");
  await Deno.writeTextFile(log, `${new Date().toISOString()} ${line}\n`, { append: true });
}

// Lists the tools (with the server's instructions) or calls one, logging it.
async function talk(command: "list" | "call", rest: string[]): Promise<void> {
  const url = Deno.env.get("RUN_URL") ?? "http://127.0.0.1:8787/sourcegraph/mcp";
  const token = Deno.env.get("RUN_TOKEN");
  const client = new Client({ name: "agent-calls", version: "0" });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  try {
    if (command === "list") {
      await record("LIST");
      console.log(`Server instructions:\n${client.getInstructions() ?? "(none)"}`);
      console.log(JSON.stringify((await client.listTools()).tools, null, 1));
      return;
    }
    const [tool, json] = rest;
    await record(`CALL ${tool} ${json ?? "{}"}`);
    const answer = await client.callTool({ name: tool, arguments: JSON.parse(json ?? "{}") });
    for (const block of answer.content as { text?: string }[]) {
      console.log(block.text ?? JSON.stringify(block));
    }
    if (answer.isError) console.log("(isError: true)");
  } finally {
    await client.close();
  }
}

// Calls per marked question, and the total.
function summary(log: string): string {
  const calls = new Map<string, string[]>();
  let question = "(before Q1)";
  for (const line of log.split("\n")) {
    const [, kind, ...what] = line.split(" ");
    if (kind === "MARK") question = what.join(" ");
    if (kind === "CALL") calls.set(question, [...(calls.get(question) ?? []), what[0]]);
  }
  const rows = [...calls].map(([label, tools]) =>
    `${label}: ${tools.length} (${tools.join(", ")})`
  );
  const total = [...calls.values()].reduce((sum, tools) => sum + tools.length, 0);
  return [
    ...rows,
    `total: ${total} calls, ${(total / Math.max(calls.size, 1)).toFixed(2)} a question`,
  ]
    .join("\n");
}
