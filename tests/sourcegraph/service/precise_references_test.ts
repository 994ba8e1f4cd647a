/**
 * Precise references against the TypeScript compiler: a small TypeScript
 * project is indexed by the npm `@sourcegraph/scip-typescript` indexer (as a
 * user's CI would), its index uploaded through the admin API, and then, at
 * every identifier of the project, the `references` tool's rows (through a
 * real MCP client) name exactly the lines the language service's
 * `getReferencesAtPosition` names, and the definition from the index is the
 * one `getDefinitionAtPosition` gives. Names the search would confuse (a
 * local `total` in two files, `sum` in a comment and a string) are told apart.
 */

import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { assert, assertEquals } from "../../support/assert.ts";
import {
  connectInProcess,
  inProcessFetch,
  withInProcessService,
  WORLD_TOKEN,
} from "../../support/in_process_service.ts";
import {
  identifiers,
  languageService,
  runScipTypescript,
  scipTypescript,
} from "../../support/scip_typescript.ts";
import { callTool } from "../../support/tool_calls.ts";
import { removeDir, tempDir } from "../../support/git_repo.ts";

const PROJECT: Record<string, string> = {
  "package.json": '{ "name": "fixture", "version": "1.0.0" }\n',
  "tsconfig.json":
    '{ "compilerOptions": { "target": "ES2020", "module": "ES2020", "strict": true, "noEmit": true }, "include": ["src"] }\n',
  "src/math.ts": [
    "export const SCALE = 2;",
    "",
    "export function scale(value: number): number {",
    "  return value * SCALE;",
    "}",
    "",
    "export function sum(values: number[]): number {",
    "  let total = 0;",
    "  for (const value of values) {",
    "    total = total + scale(value);",
    "  }",
    "  return total;",
    "}",
    "",
  ].join("\n"),
  "src/shapes.ts": [
    "export interface Point {",
    "  x: number;",
    "  y: number;",
    "}",
    "",
    "export type Path = Point[];",
    "",
    "export function pathLength(path: Path): number {",
    "  let result = 0;",
    "  for (let i = 1; i < path.length; i++) {",
    "    const step = Math.hypot(path[i].x - path[i - 1].x, path[i].y - path[i - 1].y);",
    "    result += step;",
    "  }",
    "  return result;",
    "}",
    "",
  ].join("\n"),
  "src/main.ts": [
    'import { SCALE, scale, sum } from "./math";',
    'import { type Path, pathLength } from "./shapes";',
    "",
    "// sum in a comment is no reference",
    "const path: Path = [];",
    "let total = sum([1, 2]) + scale(SCALE);",
    "total = total + pathLength(path);",
    'console.log("sum", total);',
    "",
  ].join("\n"),
};

const NAME = "org/ts";

// The `File:` and row lines of an answer as "path:line".
function answered(answer: string): string[] {
  const lines: string[] = [];
  let file = "";
  for (const line of answer.split("\n")) {
    const named = /^File: "(.*)"$/.exec(line);
    if (named) file = named[1];
    const row = /^(\d+) \[/.exec(line);
    if (row) lines.push(`${file}:${row[1]}`);
  }
  return lines.sort();
}

async function uploadIndex(handle: Parameters<typeof inProcessFetch>[0], at: {
  commit: string;
  bytes: Uint8Array<ArrayBuffer>;
}): Promise<Response> {
  return await inProcessFetch(handle)(
    `/sourcegraph/api/admin/v1/repo/scip?repo=${NAME}&commit=${at.commit}`,
    { method: "POST", headers: { authorization: `Bearer ${WORLD_TOKEN}` }, body: at.bytes },
  );
}

const tool = scipTypescript();

Deno.test({
  name:
    "precise references: scip-typescript's index answers as the TypeScript language service does",
  ignore: tool === null,
  fn: () =>
    withInProcessService(async ({ handle, heads, sources, localCalls }) => {
      const scratch = await tempDir("scip-ts-");
      const client: Client = await connectInProcess(handle);
      try {
        const root = sources.get(NAME)!.path;
        const output = join(scratch, "index.scip");
        await runScipTypescript(tool!, { root, output });
        const commit = heads.get(NAME)!;
        const response = await uploadIndex(handle, { commit, bytes: Deno.readFileSync(output) });
        assertEquals(response.status, 201, await response.clone().text());
        const uploaded = await response.json();
        assertEquals(uploaded.tool.name, "scip-typescript");
        assertEquals(uploaded.documents, 3);
        const service = languageService(root, PROJECT);
        let compared = 0;
        let definitions = 0;
        for (const path of ["src/math.ts", "src/shapes.ts", "src/main.ts"]) {
          const fileName = join(root, path);
          for (const at of identifiers(service, fileName)) {
            const expected = (service.getReferencesAtPosition(fileName, at.offset) ?? [])
              .filter((entry) => entry.fileName.startsWith(`${root}/`))
              .map((entry) => {
                const file = service.getProgram()!.getSourceFile(entry.fileName)!;
                const { line } = file.getLineAndCharacterOfPosition(entry.textSpan.start);
                return `${entry.fileName.slice(root.length + 1)}:${line + 1}`;
              });
            const where = `${path}:${at.line + 1}:${at.character + 1} ${at.text}`;
            const outcome = await callTool(client, "references", {
              repo: NAME,
              path,
              line: at.line + 1,
              column: at.character + 1,
            });
            const answer = outcome.texts[0];
            if (expected.length === 0) continue; // `Math`, `console`: defined outside the project
            assert(
              answer.includes(`Precision: "precise"; Tool: "scip-typescript`),
              `${where}\n${answer}`,
            );
            assertEquals(answered(answer), [...new Set(expected)].sort(), where);
            compared++;
            const definition = (service.getDefinitionAtPosition(fileName, at.offset) ?? [])
              .filter((entry) => entry.fileName.startsWith(`${root}/`));
            const precise = await localCalls.scipDefinition({ kind: "anonymous" }, {
              repo: NAME,
              path,
              line: at.line + 1,
              column: at.character + 1,
            });
            if (definition.length === 1) {
              const file = service.getProgram()!.getSourceFile(definition[0].fileName)!;
              const start = file.getLineAndCharacterOfPosition(definition[0].textSpan.start);
              assertEquals(
                precise && `${precise.path}:${precise.line}:${precise.column}`,
                `${definition[0].fileName.slice(root.length + 1)}:${start.line + 1}:${
                  start.character + 1
                }`,
                `definition at ${where}`,
              );
              // The definition tool answers from the index too, at the same place.
              const tool = await callTool(client, "definition", {
                repo: NAME,
                path,
                line: at.line + 1,
                column: at.character + 1,
              });
              const text = tool.texts[0];
              assert(text.includes(`Precision: "precise"; Tool: "scip-typescript`), text);
              assert(
                text.includes(
                  `Definition: "${definition[0].fileName.slice(root.length + 1)}:${
                    start.line + 1
                  }"`,
                ) && text.includes(`Via: "scip"`),
                `definition tool at ${where}\n${text}`,
              );
              definitions++;
            }
          }
        }
        assert(compared >= 40, `compared ${compared} positions`);
        assert(definitions >= 30, `compared ${definitions} definitions`);
      } finally {
        await client.close();
        await removeDir(scratch);
      }
    }, { repositories: [{ name: NAME, publicRead: true, files: PROJECT }] }),
});
