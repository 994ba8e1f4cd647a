import plugin from "../../tools/lint/function_length.ts";
import { assertEquals } from "../support/assert.ts";

const body = (lines: number) => Array.from({ length: lines }, (_, i) => `  const v${i} = ${i};`);
const fn = (name: string, lines: number) =>
  [`export function ${name}(): void {`, ...body(lines - 2), "}"].join("\n");

Deno.test("function length: over 60 lines in the service is reported, 60 is not, other folders are not checked", () => {
  const source = [fn("sixty", 60), fn("sixtyOne", 61)].join("\n");
  const service = Deno.lint.runPlugin(plugin, "/repo/sourcegraph/long.ts", source);
  assertEquals(service.map((d) => d.message), ["sixtyOne is 61 lines long (at most 60)"]);
  const arrow = `const run = () => {\n${body(60).join("\n")}\n};\n`;
  assertEquals(Deno.lint.runPlugin(plugin, "/repo/sourcegraph/arrow.ts", arrow).length, 1);
  assertEquals(Deno.lint.runPlugin(plugin, "/repo/git_source/long.ts", source).length, 0);
});
