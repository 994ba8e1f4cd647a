/**
 * `references` and `definition` through a real MCP client on an in-process
 * service over a real Git repository of C files: a `static` function
 * defined in two files is answered from one file with that file's
 * occurrences only (the header says what it resolved to), a parameter
 * with its function's occurrences only, a global function in every file
 * but where a parameter of its name hides it; `definition` from a use of a
 * local lands on the local's declaration. PHP: a variable is asked by its
 * name with or without its `$`; Ruby: an instance variable as `@name`.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { assert, assertEquals } from "../../../support/assert.ts";
import { withInProcessClient } from "../../../support/in_process_service.ts";
import { toolOutcome } from "../../../support/tool_calls.ts";

const NAME = "org/c";

const FILES: Record<string, string> = {
  "negotiator/default.c": [
    "static int get_rev(int subject_len)",
    "{",
    "\treturn subject_len + find_subject(subject_len);",
    "}",
    "int next_default(void) { return get_rev(1); }",
    "",
  ].join("\n"),
  "negotiator/skipping.c": [
    "static int get_rev(int n) { return n; }",
    "int next_skipping(void) { return get_rev(2); }",
    "",
  ].join("\n"),
  "commit.h": "int find_subject(int subject_len);\n",
  "commit.c": [
    '#include "commit.h"',
    "int find_subject(int subject_len)",
    "{",
    "\tint len = subject_len; /* subject_len */",
    "\treturn len;",
    "}",
    "",
  ].join("\n"),
  "walk.c": "static void walk(int (*find_subject)(int)) { find_subject(1); }\n",
};

// The answer's text and its rows as `path:line`.
async function references(
  client: Client,
  at: { path: string; line: number; symbol: string },
): Promise<{ text: string; rows: string[] }> {
  const result = await client.callTool({
    name: "references",
    arguments: { repo: NAME, ...at, max_bytes: 8192 },
  });
  const outcome = toolOutcome(result);
  assertEquals(outcome.code, "OK", outcome.texts.join());
  const structured = result.structuredContent as { references: { path: string; line: number }[] };
  const rows = structured.references.map((row) => `${row.path}:${row.line}`).sort();
  return { text: outcome.texts[0], rows };
}

async function cScopes(client: Client): Promise<void> {
  const rev = await references(client, {
    path: "negotiator/default.c",
    line: 1,
    symbol: "get_rev",
  });
  assert(rev.text.includes('Resolved: "negotiator/default.c:1"'), rev.text);
  assert(!rev.text.includes("scopes not resolved"), rev.text);
  assertEquals(rev.rows, ["negotiator/default.c:1", "negotiator/default.c:5"]);

  const parameter = await references(client, {
    path: "commit.c",
    line: 4,
    symbol: "subject_len",
  });
  assert(parameter.text.includes('Resolved: "commit.c:2"'), parameter.text);
  assertEquals(parameter.rows, ["commit.c:2", "commit.c:4"]);

  const global = await references(client, { path: "commit.c", line: 2, symbol: "find_subject" });
  assertEquals(global.rows, ["commit.c:2", "commit.h:1", "negotiator/default.c:3"]);
}

async function cDefinitions(client: Client): Promise<void> {
  const at = async (path: string, line: number, symbol: string) => {
    const result = await client.callTool({
      name: "definition",
      arguments: { repo: NAME, path, line, symbol },
    });
    const outcome = toolOutcome(result);
    assertEquals(outcome.code, "OK", outcome.texts.join());
    const structured = result.structuredContent as {
      definition: { path: string; line: number } | null;
    };
    const found = structured.definition;
    return found === null ? null : `${found.path}:${found.line}`;
  };
  assertEquals(await at("negotiator/default.c", 3, "subject_len"), "negotiator/default.c:1");
  assertEquals(await at("negotiator/skipping.c", 2, "get_rev"), "negotiator/skipping.c:1");
  assertEquals(await at("commit.c", 5, "len"), "commit.c:4");
}

const PHP_NAME = "org/php";

const PHP_FILES: Record<string, string> = {
  "src/Route.php": [
    "<?php",
    "class Route {",
    "    private $count;",
    "    public function run($count) {",
    "        $total = $count + 1;",
    "        return $this->count + $total;",
    "    }",
    "    public function twice($count) { return 2 * $count; }",
    "}",
    "",
  ].join("\n"),
};

async function phpVariables(client: Client): Promise<void> {
  const ask = async (line: number, symbol: string) => {
    const result = await client.callTool({
      name: "references",
      arguments: { repo: PHP_NAME, path: "src/Route.php", line, symbol, max_bytes: 8192 },
    });
    const outcome = toolOutcome(result);
    assertEquals(outcome.code, "OK", outcome.texts.join());
    const structured = result.structuredContent as { references: { line: number }[] };
    return structured.references.map((row) => row.line);
  };
  // `$count` of `run`: its parameter and use, not the property nor another method's parameter.
  assertEquals(await ask(4, "count"), [4, 5]);
  assertEquals(await ask(5, "$count"), [4, 5]);
  assertEquals(await ask(5, "total"), [5, 6]);
  // The private property and its `$this->count`.
  assertEquals(await ask(3, "count"), [3, 6]);
}

const RUBY_NAME = "org/ruby";

const RUBY_FILES: Record<string, string> = {
  "lib/route.rb": [
    "class Route",
    "  def initialize(count)",
    "    @count = count",
    "  end",
    "  def count",
    "    @count + 1",
    "  end",
    "end",
    "",
  ].join("\n"),
  "lib/other.rb": "class Other\n  def initialize\n    @count = 0\n  end\nend\n",
};

async function rubyInstanceVariables(client: Client): Promise<void> {
  const ask = async (at: { line: number; symbol?: string; column?: number }) => {
    const result = await client.callTool({
      name: "references",
      arguments: { repo: RUBY_NAME, path: "lib/route.rb", ...at, max_bytes: 8192 },
    });
    const outcome = toolOutcome(result);
    assertEquals(outcome.code, "OK", outcome.texts.join());
    const structured = result.structuredContent as {
      references: { path: string; line: number }[];
    };
    return structured.references.map((row) => `${row.path}:${row.line}`);
  };
  assertEquals(await ask({ line: 3, symbol: "@count" }), ["lib/route.rb:3", "lib/route.rb:6"]);
  assertEquals(await ask({ line: 6, column: 6 }), ["lib/route.rb:3", "lib/route.rb:6"]);
  // The parameter `count` of line 3 is another name.
  assertEquals(await ask({ line: 3, symbol: "count" }), ["lib/route.rb:2", "lib/route.rb:3"]);
}

const CASES: [string, (client: Client) => Promise<void>][] = [
  [
    "references in C: a static function is its file's, a parameter its function's, a global everyone's but a parameter's",
    cScopes,
  ],
  [
    "definition in C: a use of a parameter leads to the parameter, of a static function to its file's definition",
    cDefinitions,
  ],
  [
    "references in PHP: a variable is asked by its name, with or without its $; a property apart from it",
    phpVariables,
  ],
  [
    "references in Ruby: an instance variable is asked as @name, by symbol or column, and is its file's",
    rubyInstanceVariables,
  ],
];

// One world of the three repositories: each case asks its own repository only.
Deno.test("references and definition by language: one world of a C, a PHP and a Ruby repository, case by case", (t) =>
  withInProcessClient(async (client) => {
    for (const [name, fn] of CASES) await t.step(name, () => fn(client));
  }, {
    repositories: [
      { name: NAME, publicRead: true, files: FILES },
      { name: PHP_NAME, publicRead: true, files: PHP_FILES },
      { name: RUBY_NAME, publicRead: true, files: RUBY_FILES },
    ],
  }));
