/**
 * A commit search still reading its repository's log at its deadline (an
 * injected clock) answers at once: nothing checked, `partial`, the next
 * page starting where this one did; the read goes on and is kept for it.
 * Once read, a log serves every message and author search of its heads.
 */

import { assertEquals } from "../../support/assert.ts";
import { withInProcessService } from "../../support/in_process_service.ts";
import { Visibility } from "../../../sourcegraph/access/visibility.ts";
import { type CommitLog, CommitLogs } from "../../../sourcegraph/git/commit_log.ts";
import { MirrorReaders } from "../../../sourcegraph/git/mirror_readers.ts";
import { RepositoryCommits } from "../../../sourcegraph/service/repository_commits.ts";

// Logs whose reads never finish (a log too slow for any deadline).
class StalledLogs extends CommitLogs {
  asked = 0;
  override log(): Promise<CommitLog> {
    this.asked++;
    return new Promise(() => {});
  }
}

Deno.test("commits: a log still being read at the deadline gives a partial page that starts again where it was", () =>
  withInProcessService(async ({ store, data, heads }) => {
    const logs = new StalledLogs();
    const commits = new RepositoryCommits(store, {
      visibility: new Visibility(store, { publicRead: true }),
      mirrors: new MirrorReaders(data),
      logs,
      now: () => 0,
    });
    const caller = { kind: "anonymous" } as const;
    const page = await commits.commits(caller, {
      repo: "org/open",
      message: "initial",
      first: 20,
      budgetMs: 5,
    });
    assertEquals(logs.asked, 1);
    assertEquals(page.partial, true);
    assertEquals(page.commits, []);
    assertEquals(page.next, 0);
    assertEquals(page.heads, [{ branch: "main", commit: heads.get("org/open")! }]);
    // With the log read, the same search finds the commit.
    const kept = new CommitLogs();
    const ready = new RepositoryCommits(store, {
      visibility: new Visibility(store, { publicRead: true }),
      mirrors: new MirrorReaders(data),
      logs: kept,
    });
    const found = await ready.commits(caller, {
      repo: "org/open",
      message: "initial",
      first: 20,
      budgetMs: 60_000,
    });
    assertEquals(found.commits.map((entry) => entry.commit), [heads.get("org/open")!]);
    assertEquals(found.next, null);
    // Other message and author searches of the same heads read no log again (no Git process).
    for (const query of [{ message: "x" }, { author: "Test" }, { message: "i", author: "T" }]) {
      await ready.commits(caller, { repo: "org/open", ...query, first: 20, budgetMs: 60_000 });
    }
    assertEquals(kept.reads, 1);
  }));
