import pg from "pg";
import { CONTROL_SCHEMA_VERSION } from "../../../../sourcegraph/store/control_migrations.ts";
import {
  migratePostgres,
  PostgresStoreTooNew,
  type SqlConnection,
} from "../../../../sourcegraph/store/postgres/pg_migrations.ts";
import { assert, assertEquals, assertIncludes } from "../../../support/assert.ts";
import { postgresBin, sharedPostgres } from "../../../support/postgres_server.ts";

const BIN = postgresBin();

async function tables(client: pg.Client): Promise<string[]> {
  const rows = (await client.query(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
  )).rows as { table_name: string }[];
  return rows.map((row) => row.table_name);
}

Deno.test({
  name:
    "PostgreSQL schema: replicas migrating a new database together apply each version once; a newer database is refused untouched",
  ignore: BIN === null,
  fn: async () => {
    // A new database of the process's shared server (advisory locks are per database).
    const url = await (await sharedPostgres(BIN!)).createDatabase("migrations");
    const clients: pg.Client[] = [];
    const connect = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      clients.push(client);
      return client;
    };
    try {
      const replicas = await Promise.all([connect(), connect(), connect()]);
      const applied = await Promise.all(
        replicas.map((client: SqlConnection) => migratePostgres(client)),
      );
      assertEquals(
        applied.map((versions: number[]) => versions.join(",")).sort(),
        ["", "", Array.from({ length: CONTROL_SCHEMA_VERSION }, (_, i) => i + 1).join(",")],
        "one replica migrates, the others find it done",
      );
      const [first] = replicas;
      assertEquals(await tables(first), [
        "credentials",
        "heads",
        "holdings",
        "jobs",
        "meta",
        "oauth_clients",
        "oauth_codes",
        "oauth_tokens",
        "personal_keys",
        "placement_pins",
        "replicas",
        "repositories",
        "scip_index_pieces",
        "scip_indexes",
        "sessions",
        "sourcegraph_schema",
        "sync_state",
        "versions",
      ]);
      const columns = (await first.query(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'jobs'",
      )).rows.map((row: { column_name: string }) => row.column_name);
      assert(columns.includes("request_hash"), columns.join(","));
      assertEquals(await migratePostgres(first), [], "a current database is left as it is");

      // A database written by a later version.
      await first.query("UPDATE sourcegraph_schema SET version = $1", [CONTROL_SCHEMA_VERSION + 1]);
      const before = await tables(first);
      let refusal: unknown = null;
      try {
        await migratePostgres(first);
      } catch (error) {
        refusal = error;
      }
      assert(refusal instanceof PostgresStoreTooNew, String(refusal));
      assertIncludes((refusal as Error).message, `schema version ${CONTROL_SCHEMA_VERSION + 1}`);
      assert(!(refusal as Error).message.includes("\n"), "one line");
      assertEquals(await tables(first), before);
      // The lock was released: another replica can take it at once.
      const other = replicas[1];
      const locked = (await other.query("SELECT pg_try_advisory_lock(1) AS got")).rows[0].got;
      assertEquals(locked, true);
    } finally {
      for (const client of clients) await client.end().catch(() => {});
    }
  },
});
