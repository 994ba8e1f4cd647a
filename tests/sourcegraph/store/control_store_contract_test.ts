// One contract, both control stores: every step runs against the SQLite
// file and against a private PostgreSQL server.
import { join } from "node:path";
import {
  type ControlStore,
  IDEMPOTENCY_RETENTION_MS,
  type NewRepository,
  RepositoryNameTaken,
} from "../../../sourcegraph/store/control_store.ts";
import { PostgresControlStore } from "../../../sourcegraph/store/postgres/postgres_control_store.ts";
import { SqliteControlStore } from "../../../sourcegraph/store/sqlite_control_store.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import { removeDir, tempDir } from "../../support/git_repo.ts";
import { postgresBin, type PostgresServer, startPostgres } from "../../support/postgres_server.ts";

const BIN = postgresBin();

/** Opens a store on a fresh, empty backing; `reopen` opens another on the same one. */
interface Backing {
  open(): Promise<ControlStore>;
}

function repository(name: string, extra: Partial<NewRepository> = {}): NewRepository {
  return {
    name,
    source: `/srv/${name}`,
    publicRead: true,
    policy: { branches: ["main"], defaultBranch: "main", count: 3 },
    pathGroups: [],
    syncIntervalMinutes: 5,
    ...extra,
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

type Step = (backing: () => Promise<Backing>) => Promise<void>;

const STEPS: [string, Step][] = [
  [
    "registrations: ids count up and are never reused; names are unique; fields round-trip",
    async (fresh) => {
      const backing = await fresh();
      const store = await backing.open();
      try {
        const a = await store.register(repository("org/b", { publicRead: false }));
        const b = await store.register(repository("org/a", {
          pathGroups: [{ name: "web", paths: ["apps/web"] }],
          policy: { branches: ["main", "dev"], days: 7 },
          syncIntervalMinutes: 30,
        }));
        assertEquals([a.id, b.id], [1, 2]);
        assertEquals(store.repositories().map((repo) => repo.name), ["org/a", "org/b"]);
        assertEquals(store.repository("org/a"), {
          id: 2,
          name: "org/a",
          source: "/srv/org/a",
          publicRead: true,
          disabled: false,
          policy: { branches: ["main", "dev"], days: 7 },
          pathGroups: [{ name: "web", paths: ["apps/web"] }],
          syncIntervalMinutes: 30,
        });
        assert(
          (await rejection(store.register(repository("org/a")))) instanceof RepositoryNameTaken,
          "a taken name is refused",
        );
        await store.remove(b.id);
        const c = await store.register(repository("org/c"));
        assertEquals(c.id, 3, "a removed repository's id is not given again");
        assertEquals(store.repository("org/a"), null);
        const updated = await store.update("org/b", {
          disabled: true,
          publicRead: true,
          source: "/srv/moved",
        });
        assertEquals(
          [updated?.disabled, updated?.publicRead, updated?.source],
          [true, true, "/srv/moved"],
        );
        assertEquals(await store.update("org/none", { disabled: true }), null);
        // A record a read returns cannot change the store.
        const read = store.repository("org/b")!;
        try {
          read.policy.branches.push("x");
          read.source = "/elsewhere";
        } catch {
          // frozen: as good
        }
        assertEquals(store.repository("org/b")!.policy.branches, ["main"]);
        assertEquals(store.repository("org/b")!.source, "/srv/moved");
      } finally {
        await store.close();
      }
    },
  ],
  ["heads, retained versions (newest first), forgetting, and sync outcomes", async (fresh) => {
    const backing = await fresh();
    const store = await backing.open();
    try {
      const repo = await store.register(repository("org/v"));
      assertEquals(store.syncState(repo.id), {
        state: "pending",
        lastError: null,
        updatedAt: null,
      });
      await store.observe(repo.id, { branch: "main", commit: "a".repeat(40), committerTime: 10 });
      await new Promise((resolve) => setTimeout(resolve, 2));
      await store.observe(repo.id, { branch: "main", commit: "b".repeat(40), committerTime: null });
      await store.observe(repo.id, { branch: "dev", commit: "a".repeat(40), committerTime: 10 });
      assertEquals(
        store.heads(repo.id),
        new Map([["main", "b".repeat(40)], ["dev", "a".repeat(40)]]),
      );
      const versions = store.versions(repo.id);
      assertEquals(versions.map((version) => version.commit), ["a".repeat(40), "b".repeat(40)]);
      assert(versions[0].observedAt >= versions[1].observedAt, "newest observation first");
      assertEquals(store.isRetained(repo.id, "b".repeat(40))?.committerTime, null);
      assertEquals(store.isRetained(repo.id, "c".repeat(40)), null);
      await store.forget(repo.id, ["a".repeat(40)]);
      assertEquals(store.versions(repo.id).map((version) => version.commit), ["b".repeat(40)]);
      await store.setSyncState(repo.id, { state: "failed", lastError: "AUTH_FAILED" });
      const state = store.syncState(repo.id);
      assertEquals([state.state, state.lastError], ["failed", "AUTH_FAILED"]);
      assert(typeof state.updatedAt === "number");
      await store.remove(repo.id);
      assertEquals([store.heads(repo.id).size, store.versions(repo.id).length], [0, 0]);
      assertEquals(store.syncState(repo.id).state, "pending");
    } finally {
      await store.close();
    }
  }],
  ["personal keys by hash; revoking says whether the key existed", async (fresh) => {
    const backing = await fresh();
    const store = await backing.open();
    try {
      await store.addKey("key_1", { keyHash: "h1", name: "ci" });
      assertEquals([store.keyByHash("h1"), store.keyByHash("h2")], ["key_1", null]);
      assertEquals([store.hasKey("key_1"), store.hasKey("key_2")], [true, false]);
      assertEquals([await store.keyExistsNow("key_1"), await store.keyExistsNow("key_2")], [
        true,
        false,
      ]);
      assertEquals(await store.removeKey("key_1"), true);
      assertEquals([await store.removeKey("key_1"), store.hasKey("key_1")], [false, false]);
      assertEquals(store.keyByHash("h1"), null);
    } finally {
      await store.close();
    }
  }],
  [
    "idempotency records: the first result stays; a removed repository's records go",
    async (fresh) => {
      const backing = await fresh();
      const store = await backing.open();
      try {
        const repo = await store.register(repository("org/j"));
        assertEquals(await store.job("admin:k1"), null);
        await store.saveJob("admin:k1", {
          repositoryId: repo.id,
          result: "first",
          requestHash: "f",
        });
        await store.saveJob("admin:k1", { repositoryId: repo.id, result: "second" });
        assertEquals(await store.job("admin:k1"), {
          repositoryId: repo.id,
          result: "first",
          requestHash: "f",
        });
        await store.saveJob("admin:k2", { repositoryId: repo.id, result: "x" });
        assertEquals((await store.job("admin:k2"))?.requestHash, null);
        await store.remove(repo.id);
        assertEquals(await store.job("admin:k1"), null);
        assert(IDEMPOTENCY_RETENTION_MS >= 24 * 3_600_000);
      } finally {
        await store.close();
      }
    },
  ],
  ["sessions: saved, found, removed, expired ones dropped, the number capped", async (fresh) => {
    const backing = await fresh();
    const store = await backing.open();
    try {
      const caller = { kind: "key" as const, id: "key_9" };
      await store.sessions.save({ idHash: "s1", caller, csrf: "c1", expiresAt: 5_000 }, {
        now: 1_000,
        max: 3,
      });
      assertEquals(await store.sessions.find("s1"), {
        idHash: "s1",
        caller,
        csrf: "c1",
        expiresAt: 5_000,
      });
      assertEquals(await store.sessions.find("s0"), null);
      for (const [i, expiresAt] of [6_000, 7_000, 8_000].entries()) {
        await store.sessions.save(
          { idHash: `t${i}`, caller: { kind: "service" }, csrf: "c", expiresAt },
          { now: 1_000, max: 3 },
        );
      }
      assertEquals(await store.sessions.count(), 3, "the one that expires first went");
      await store.sessions.save(
        { idHash: "u", caller: { kind: "service" }, csrf: "c", expiresAt: 99_000 },
        { now: 7_500, max: 3 },
      );
      assertEquals(await store.sessions.count(), 2, "expired ones are dropped as new ones start");
      await store.sessions.remove("u");
      assertEquals(await store.sessions.find("u"), null);
    } finally {
      await store.close();
    }
  }],
  ["everything survives closing and opening again", async (fresh) => {
    const backing = await fresh();
    let store = await backing.open();
    const repo = await store.register(repository("org/kept"));
    await store.observe(repo.id, { branch: "main", commit: "d".repeat(40), committerTime: 1 });
    await store.addKey("key_k", { keyHash: "hk", name: "kept" });
    await store.sessions.save(
      { idHash: "sk", caller: { kind: "service" }, csrf: "ck", expiresAt: Date.now() + 60_000 },
      { now: Date.now(), max: 10 },
    );
    await store.close();
    store = await backing.open();
    try {
      assertEquals(store.repository("org/kept")?.id, repo.id);
      assertEquals(store.heads(repo.id).get("main"), "d".repeat(40));
      assertEquals(store.keyByHash("hk"), "key_k");
      assertEquals((await store.sessions.find("sk"))?.csrf, "ck");
      assertEquals((await store.register(repository("org/next"))).id, repo.id + 1);
    } finally {
      await store.close();
    }
  }],
  [
    "two registrations of one name at once: one wins, the other is told the name is taken",
    async (fresh) => {
      const backing = await fresh();
      const [one, two] = [await backing.open(), await backing.open()];
      try {
        const outcomes = await Promise.allSettled([
          one.register(repository("org/race")),
          two.register(repository("org/race")),
        ]);
        assertEquals(outcomes.map((outcome) => outcome.status).sort(), ["fulfilled", "rejected"]);
        const lost = outcomes.find((outcome) =>
          outcome.status === "rejected"
        ) as PromiseRejectedResult;
        assert(lost.reason instanceof RepositoryNameTaken, String(lost.reason));
      } finally {
        await one.close();
        await two.close();
      }
    },
  ],
];

Deno.test("control store contract: SQLite", async (t) => {
  const dir = await tempDir("sg-contract-");
  let n = 0;
  try {
    for (const [name, step] of STEPS) {
      await t.step(name, () =>
        step(() => {
          const path = join(dir, `control-${++n}.sqlite3`);
          return Promise.resolve({ open: () => Promise.resolve(new SqliteControlStore(path)) });
        }));
    }
  } finally {
    await removeDir(dir);
  }
});

Deno.test({
  name: "control store contract: PostgreSQL",
  ignore: BIN === null,
  fn: async (t) => {
    const server: PostgresServer = await startPostgres(BIN!);
    let n = 0;
    try {
      for (const [name, step] of STEPS) {
        await t.step(name, () =>
          step(async () => {
            const url = await server.createDatabase(`contract_${++n}`);
            return { open: () => PostgresControlStore.open(url, { log: () => {} }) };
          }));
      }
    } finally {
      await server.stop();
    }
  },
});
