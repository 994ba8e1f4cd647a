/**
 * Search pages: every answer stays within its max_bytes, a page cut short
 * gives the cursor of the next, and paging through a common literal on the
 * Git source tree returns exactly `git grep`'s matches, each once.
 */

import { assert, assertEquals, waitFor } from "../../support/assert.ts";
import { connectInProcess, withInProcessService } from "../../support/in_process_service.ts";
import { callTool } from "../../support/tool_calls.ts";
import { systemTool } from "../../support/system_tools.ts";
import type { TestRepo } from "../../support/git_repo.ts";

const CORPUS = systemTool(
  [new URL("../../../../shared/corpora/git-1a3e64c6c4.tar.gz", import.meta.url).pathname],
  { what: "Git source tree corpus", install: "the corpora folder beside the checkout" },
);
const NAME = "org/git";
const LITERAL = "strbuf_addstr";

// The rows of a page: [path, line] of each match.
function matches(text: string): string[] {
  const out: string[] = [];
  let path = "";
  for (const line of text.split("\n")) {
    const file = /^File: (".*")$/.exec(line);
    if (file) path = JSON.parse(file[1]);
    const row = /^(\d+): /.exec(line);
    if (row) out.push(`${path}:${row[1]}`);
  }
  return out;
}

function header(text: string, label: string): string | undefined {
  return text.split("\n").find((line) => line.startsWith(`${label}: `))?.slice(label.length + 2);
}

async function extractCorpus(repo: TestRepo): Promise<void> {
  const tar = new Deno.Command("tar", {
    args: ["-xzf", CORPUS!, "-C", repo.path, "--strip-components=1"],
  });
  assert((await tar.output()).success, "the corpus extracts");
}

Deno.test({
  name:
    "search paging: pages within max_bytes, each with the next cursor, give exactly git grep's matches on the Git tree",
  ignore: CORPUS === null,
  fn: () =>
    withInProcessService(async ({ handle, sources }) => {
      const grep = await new Deno.Command("git", {
        args: ["grep", "-n", "-I", "-F", "--full-name", LITERAL, "HEAD", "--", "."],
        cwd: sources.get(NAME)!.path,
      }).output();
      const expected = new TextDecoder().decode(grep.stdout).trimEnd().split("\n")
        .map((line) => line.replace(/^HEAD:/, "").replace(/^(.*?:\d+):.*$/, "$1"));
      assert(expected.length > 1000, `${expected.length} lines`);

      const client = await connectInProcess(handle);
      try {
        const search = (args: Record<string, unknown>) =>
          callTool(client, "search", {
            repo: NAME,
            pattern: LITERAL,
            fixed_strings: true,
            max_lines_per_file: 1000,
            ...args,
          });
        await waitFor(
          async () => (await search({})).texts[0].includes('Index: "ready"'),
          // A guard against a build that never ends, not a time budget.
          { timeoutMs: 600_000, what: "index ready" },
        );
        for (const maxBytes of [undefined, 4096]) {
          const seen: string[] = [];
          let after: string | undefined;
          let pages = 0;
          let commit: string | undefined;
          for (;;) {
            const outcome = await search({ max_bytes: maxBytes, after });
            assertEquals(outcome.code, "OK", outcome.texts[0]);
            const text = outcome.texts[0];
            const limit = maxBytes ?? 32 * 1024;
            assert(new TextEncoder().encode(text).length <= limit, `page ${pages} over ${limit}`);
            commit ??= header(text, "Commit");
            assertEquals(header(text, "Commit"), commit, "every page at the first page's commit");
            seen.push(...matches(text));
            pages++;
            const next = header(text, "NextCursor");
            if (next === undefined) break;
            assertEquals(header(text, "Truncated"), "true");
            assert(header(text, "CutBy")!.includes("max_bytes"), header(text, "CutBy"));
            after = JSON.parse(next);
          }
          assertEquals(seen, expected, `every match once, in git grep's order (${maxBytes})`);
          assert(pages >= (maxBytes === undefined ? 2 : 10), `${pages} pages`);
        }
        // A cursor that is not one is refused with a hint.
        const bad = await search({ after: "bm90IGEgY3Vyc29y" });
        assertEquals(bad.code, "INVALID_CURSOR");
      } finally {
        await client.close();
      }
    }, {
      repositories: [{ name: NAME, publicRead: true, files: {}, prepare: extractCorpus }],
      searchIndex: true,
    }),
});
