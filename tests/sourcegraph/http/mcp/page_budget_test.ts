/**
 * Pages of entries within max_bytes: `repositories` and `list` leave what
 * does not fit to the next page, and following the cursors gives every
 * entry exactly once.
 */

import { assert, assertEquals } from "../../../support/assert.ts";
import {
  connectInProcess,
  withInProcessService,
  type WorldRepository,
} from "../../../support/in_process_service.ts";
import { callTool } from "../../../support/tool_calls.ts";

// Twelve repositories of long names for the repositories pages; the first one's 40 files for the
// list pages (the others hold one file: each only has to be listed).
const REPOSITORIES: WorldRepository[] = Array.from({ length: 12 }, (_, i) => ({
  name: `org/${"repository-with-a-long-name-".repeat(3)}${String(i).padStart(2, "0")}`,
  publicRead: true,
  files: Object.fromEntries(
    Array.from(
      { length: i === 0 ? 40 : 1 },
      (_, f) => [`docs/page-${String(f).padStart(2, "0")}.md`, `${f}\n`],
    ),
  ),
}));

Deno.test("page budgets: repositories and list pages fit max_bytes and together hold every entry once", () =>
  withInProcessService(async ({ handle }) => {
    const client = await connectInProcess(handle);
    try {
      const follow = async (tool: string, args: Record<string, unknown>, key: string) => {
        const seen: string[] = [];
        let after: string | undefined;
        let pages = 0;
        do {
          const outcome = await callTool(client, tool, { ...args, max_bytes: 1024, after });
          assertEquals(outcome.code, "OK", outcome.texts[0]);
          assert(new TextEncoder().encode(outcome.texts[0]).length <= 1024, outcome.texts[0]);
          const page = JSON.parse(outcome.texts[0]);
          seen.push(
            ...page[key].map((item: { repo?: string; path?: string }) => item.repo ?? item.path),
          );
          after = page.next_cursor;
          pages++;
        } while (after !== undefined);
        return { seen, pages };
      };
      const repositories = await follow("repositories", {}, "repositories");
      assertEquals(repositories.seen, REPOSITORIES.map((repo) => repo.name).sort());
      assert(repositories.pages >= 3, `${repositories.pages} pages`);
      const listing = await follow(
        "list",
        { repo: REPOSITORIES[0].name, path: "docs", first: 1000 },
        "entries",
      );
      assertEquals(listing.seen, Object.keys(REPOSITORIES[0].files).sort());
      assert(listing.pages >= 2, `${listing.pages} pages`);
    } finally {
      await client.close();
    }
  }, { repositories: REPOSITORIES }));
