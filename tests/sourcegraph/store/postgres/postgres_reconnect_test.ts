// The PostgreSQL store's reconnection against a real server stopped and
// started by the test, with the loop's clock in the test's hands: one
// pause pending at a time, pauses doubling from the first, the listening
// connection of an attempt whose reload fails closed (none left behind),
// and the attempt count starting over only after a full success.
import pg from "pg";
import type { NewRepository } from "../../../../sourcegraph/store/control_store.ts";
import { PostgresControlStore } from "../../../../sourcegraph/store/postgres/postgres_control_store.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { eventually } from "../../../support/cluster_harness.ts";
import { postgresBin, startPostgres } from "../../../support/postgres_server.ts";

const BIN = postgresBin();

const REPOSITORY: NewRepository = {
  name: "org/reconnect",
  source: "/srv/reconnect",
  publicRead: false,
  policy: { branches: ["main"] },
  pathGroups: [],
  syncIntervalMinutes: 5,
};

// Pauses that last until the test releases them (or the loop is closed).
function gatedClock() {
  const pending: (() => void)[] = [];
  const pauses: number[] = [];
  let mostPending = 0;
  return {
    pauses,
    pending: () => pending.length,
    mostPending: () => mostPending,
    sleep(ms: number, signal: AbortSignal): Promise<void> {
      pauses.push(ms);
      return new Promise((resolve) => {
        pending.push(resolve);
        mostPending = Math.max(mostPending, pending.length);
        signal.addEventListener("abort", () => resolve());
      });
    },
    release(): void {
      pending.shift()!();
    },
  };
}

Deno.test({
  name:
    "PostgreSQL store: through an outage one reconnection loop runs, pauses double, a failed attempt's listener is closed, and the store recovers once",
  ignore: BIN === null,
  fn: async () => {
    const server = await startPostgres(BIN!);
    const url = await server.createDatabase("reconnect");
    const clock = gatedClock();
    const logs: string[] = [];
    const store = await PostgresControlStore.open(url, {
      log: (line) => logs.push(line),
      reconnect: { sleep: clock.sleep, random: () => 0 },
    });
    const sql = async (text: string) => {
      const client = new pg.Client({ connectionString: url });
      client.on("error", () => {});
      await client.connect();
      try {
        return (await client.query(text)).rows;
      } finally {
        await client.end().catch(() => {});
      }
    };
    const listening = async () =>
      Number(
        (await sql(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()
          AND application_name = 'sourcegraph' AND query ILIKE 'LISTEN %'`,
        ))[0].n,
      );
    const attemptsLogged = () => logs.filter((line) => line.includes("still unreachable")).length;
    try {
      await store.register(REPOSITORY);
      assertEquals(await listening(), 1);

      await server.halt();
      await eventually(() => clock.pending() === 1, "the loop waits before its first attempt");
      for (let attempt = 1; attempt <= 3; attempt++) {
        clock.release();
        await eventually(() => attemptsLogged() === attempt, `attempt ${attempt} failed`);
        await eventually(() => clock.pending() === 1, `the pause after attempt ${attempt}`);
      }

      // Back, but the reload fails: the listener that attempt opened must not stay.
      await server.start();
      await sql("ALTER TABLE repositories RENAME TO repositories_away");
      clock.release();
      await eventually(() => attemptsLogged() === 4, "attempt 4 failed in its reload");
      await eventually(() => clock.pending() === 1, "the pause after attempt 4");
      await eventually(
        async () => (await listening()) === 0,
        "the failed attempt's listener closed",
      );
      assert(!logs.some((line) => line.includes("reachable again")), logs.join("\n"));

      await sql("ALTER TABLE repositories_away RENAME TO repositories");
      clock.release();
      await eventually(
        () => logs.some((line) => line.includes("reachable again")),
        "the store is reachable again",
      );
      assertEquals(clock.pauses, [125, 250, 500, 1_000, 2_000], "doubling from the first pause");
      assertEquals(clock.mostPending(), 1, "one loop at a time");
      assertEquals(clock.pending(), 0, "no loop left waiting");
      assertEquals(await listening(), 1, "exactly one listening connection");
      const registered = await store.register({ ...REPOSITORY, name: "org/after" });
      assertEquals(store.repository("org/after")?.id, registered.id, "writes work again");
      assertEquals(logs.filter((line) => line.includes("reachable again")), [
        "the PostgreSQL control store is reachable again (attempt 5); cache reloaded",
      ]);

      // A later loss starts over from the first pause.
      await sql(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = 'sourcegraph' AND query ILIKE 'LISTEN %'`,
      );
      await eventually(() => clock.pending() === 1, "a new loop after the next loss");
      assertEquals(clock.pauses.at(-1), 125);
      clock.release();
      await eventually(
        () => logs.filter((line) => line.includes("reachable again")).length === 2,
        "back after the second loss",
      );
      assertEquals(await listening(), 1);
    } finally {
      await store.close();
      await server.stop();
    }
  },
});
