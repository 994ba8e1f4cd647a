/**
 * A commit search across repositories shares one time budget (an injected
 * clock): each repository is given what is left of it, and past it the
 * page stops before the next repository with a position there, from which
 * a continued page starts. Only visible repositories are selected.
 */

import { join } from "node:path";
import { assertEquals } from "../../support/assert.ts";
import { removeDir, tempDir } from "../../support/git_repo.ts";
import { SqliteControlStore } from "../../../sourcegraph/store/sqlite_control_store.ts";
import { Visibility } from "../../../sourcegraph/access/visibility.ts";
import { CommitFanout } from "../../../sourcegraph/service/commit_fanout.ts";
import {
  COMMITS_MAX_MS,
  type CommitsRequest,
} from "../../../sourcegraph/service/repository_commits.ts";

const NAMES = ["org/a", "org/b", "org/c"];

// The fan-out reads the store's records only (the commits of each repository are `one`'s): a
// store with the repositories registered, none synced, is all it needs.
async function withStore(fn: (store: SqliteControlStore) => Promise<void>): Promise<void> {
  const parent = await tempDir("sg-commit-fanout-");
  const store = new SqliteControlStore(join(parent, "control.sqlite3"));
  try {
    const records = [...NAMES.map((name) => ({ name, publicRead: true })), {
      name: "org/b-closed",
      publicRead: false,
    }];
    for (const { name, publicRead } of records) {
      await store.register({
        name,
        source: join(parent, name),
        publicRead,
        policy: { branches: ["main"] },
        pathGroups: [],
        syncIntervalMinutes: 5,
      });
    }
    await fn(store);
  } finally {
    store.close();
    await removeDir(parent);
  }
}

Deno.test("commits across repositories: one time budget; past it the next page starts at the next repository", () =>
  withStore(async (store) => {
    let clock = 0;
    const asked: { repo: string; budgetMs: number }[] = [];
    const fanout = new CommitFanout(store, {
      visibility: new Visibility(store, { publicRead: true }),
      now: () => clock,
      one: (_caller, request: CommitsRequest) => {
        asked.push({ repo: request.repo, budgetMs: request.budgetMs });
        clock += 0.6 * COMMITS_MAX_MS; // each repository takes 60% of the budget
        return Promise.resolve({
          repo: request.repo,
          heads: [],
          scope: null,
          from: 0,
          commits: [],
          positions: [],
          next: null,
          partial: false,
          unchecked: [],
        });
      },
    });
    const caller = { kind: "anonymous" } as const;
    const page = await fanout.commits(caller, { repos: null, message: "x", first: 20 });
    assertEquals(asked, [
      { repo: "org/a", budgetMs: COMMITS_MAX_MS },
      { repo: "org/b", budgetMs: 0.4 * COMMITS_MAX_MS },
    ]);
    assertEquals(page.partial, true);
    assertEquals(page.next, { repo: "org/c", walk: null });
    asked.length = 0;
    const next = await fanout.commits(caller, {
      repos: null,
      message: "x",
      first: 20,
      after: page.next!,
    });
    assertEquals(asked.map((call) => call.repo), ["org/c"]);
    assertEquals(next.partial, false);
    assertEquals(next.next, null);
  }));
