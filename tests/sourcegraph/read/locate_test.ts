/**
 * `locate`, the citation check: lines cited at one retained commit followed
 * to a later one, through edits above them, edits inside them, moves within
 * the file, renames and deletions.
 */

import { assertEquals, assertIncludes } from "../../support/assert.ts";
import { connectInProcess, withInProcessService } from "../../support/in_process_service.ts";
import { callTool } from "../../support/tool_calls.ts";
import { mapSpan } from "../../../sourcegraph/read/citation_location.ts";

const numbered = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`).join("\n") + "\n";

const FIRST = {
  "src/a.ts": numbered("line ", 10),
  "src/moves.ts": "function first() {\n  return 1;\n}\nconst middle = 0;\nconst end = 1;\n",
  "src/gone.ts": "temporary\n",
  "docs/old.md": "# Title\nbody text\n",
};

// The header lines a test looks at, and the numbered rows.
function fields(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const at = line.indexOf(": ");
    if (at > 0 && /^[A-Z]/.test(line)) out[line.slice(0, at)] ??= line.slice(at + 2);
  }
  return out;
}
const rows = (text: string) => text.split("\n").filter((line) => /^\d+: /.test(line));

Deno.test("locate: unchanged, shifted, edited, moved, renamed and deleted spans at a later commit", () =>
  withInProcessService(async ({ handle, heads, sources, store, scheduler }) => {
    const name = "org/cite";
    const first = heads.get(name)!;
    const source = sources.get(name)!;
    await source.write({
      // Two lines inserted above, line 8 edited.
      "src/a.ts": "new top 1\nnew top 2\n" +
        numbered("line ", 10).replace("line 8\n", "line eight\n"),
      // The function moved below the constants.
      "src/moves.ts": "const middle = 0;\nconst end = 1;\nfunction first() {\n  return 1;\n}\n",
    });
    await source.git("mv", "docs/old.md", "docs/new.md");
    await source.git("rm", "-q", "src/gone.ts");
    const second = await source.commit("second");
    await scheduler.sync(store.repository(name)!);

    const client = await connectInProcess(handle);
    try {
      const locate = async (args: Record<string, unknown>) => {
        const outcome = await callTool(client, "locate", { repo: name, commit: first, ...args });
        assertEquals(outcome.code, "OK", outcome.texts[0]);
        return outcome.texts[0];
      };
      const shifted = await locate({ path: "src/a.ts", start_line: 3, end_line: 4 });
      assertEquals(fields(shifted).Commit, JSON.stringify(second));
      assertEquals(fields(shifted).Status, '"unchanged"');
      assertEquals(fields(shifted).Path, '"src/a.ts"');
      assertEquals(fields(shifted).Lines, "5-6");
      assertEquals(rows(shifted), ["5: line 3", "6: line 4"]);
      assertIncludes(shifted, `Cited: "src/a.ts"; Lines: 3-4; Commit: "${first}"`);

      const edited = await locate({ path: "src/a.ts", start_line: 7, end_line: 9 });
      assertEquals(fields(edited).Status, '"changed"');
      assertEquals(rows(edited), ["9: line 7", "10: line eight", "11: line 9"]);

      // Git's diff keeps the function and moves the constants above it: the function's
      // lines only shift; the constants' hunks touch them, and their text is found again.
      const kept = await locate({ path: "src/moves.ts", start_line: 1, end_line: 3 });
      assertEquals([fields(kept).Status, fields(kept).Lines], ['"unchanged"', "3-5"]);
      assertEquals(rows(kept), ["3: function first() {", "4:   return 1;", "5: }"]);
      const moved = await locate({ path: "src/moves.ts", start_line: 4, end_line: 5 });
      assertEquals([fields(moved).Status, fields(moved).Lines], ['"moved"', "1-2"]);
      assertEquals(rows(moved), ["1: const middle = 0;", "2: const end = 1;"]);

      const renamed = await locate({ path: "docs/old.md", start_line: 2, end_line: 2 });
      assertEquals(fields(renamed).Status, '"unchanged"');
      assertEquals(fields(renamed).Path, '"docs/new.md"');
      assertEquals(rows(renamed), ["2: body text"]);

      const deleted = await locate({ path: "src/gone.ts", start_line: 1, end_line: 1 });
      assertEquals(fields(deleted).Status, '"deleted"');
      assertEquals(fields(deleted).Path, undefined);
      assertEquals(rows(deleted), []);

      // At the cited commit itself: unchanged, same lines.
      const same = await locate({
        path: "src/a.ts",
        start_line: 8,
        end_line: 8,
        revision: first,
      });
      assertEquals([fields(same).Status, rows(same)], ['"unchanged"', ["8: line 8"]]);

      // Only retained versions, only spans that exist, only paths that exist.
      const codes = async (args: Record<string, unknown>) =>
        (await callTool(client, "locate", { repo: name, commit: first, ...args })).code;
      assertEquals(
        await codes({ commit: "f".repeat(40), path: "src/a.ts", start_line: 1, end_line: 1 }),
        "REVISION_NOT_ELIGIBLE",
      );
      assertEquals(
        await codes({ path: "src/a.ts", start_line: 10, end_line: 11 }),
        "LINE_RANGE_NOT_SATISFIABLE",
      );
      assertEquals(
        await codes({ path: "src/a.ts", start_line: 5, end_line: 4 }),
        "INVALID_LINE_RANGE",
      );
      assertEquals(
        await codes({ path: "src/none.ts", start_line: 1, end_line: 1 }),
        "FILE_NOT_FOUND",
      );
    } finally {
      await client.close();
    }
  }, { repositories: [{ name: "org/cite", publicRead: true, files: FIRST }] }));

Deno.test("locate: a span through git diff -U0 hunks: shifted, touched by a replacement, an insertion inside, a deletion", () => {
  const hunk = (oldStart: number, oldCount: number, newStart: number, newCount: number) => ({
    oldStart,
    oldCount,
    newStart,
    newCount,
  });
  const span = { start: 10, end: 12 };
  // Three lines inserted after line 2, one deleted at 5: +2 for lines after them.
  assertEquals(mapSpan(span, [hunk(2, 0, 3, 3), hunk(5, 1, 7, 0)]), {
    start: 12,
    end: 14,
    touched: false,
  });
  // An insertion right after the span's last line leaves it alone; inside it, touches it.
  assertEquals(mapSpan(span, [hunk(12, 0, 13, 1)]).touched, false);
  assertEquals(mapSpan(span, [hunk(11, 0, 12, 1)]).touched, true);
  // Line 11 replaced by two lines: the span becomes 10..13.
  assertEquals(mapSpan(span, [hunk(11, 1, 11, 2)]), { start: 10, end: 13, touched: true });
  // The whole span deleted: it maps to the gap where it was.
  const gone = mapSpan(span, [hunk(10, 3, 9, 0)]);
  assertEquals(gone.touched, true);
  assertEquals([gone.start, gone.end], [10, 9]);
  // Hunks after the span change nothing.
  assertEquals(mapSpan(span, [hunk(20, 2, 20, 5)]), { ...span, touched: false });
});
