import pg from "pg";
import { assert, assertEquals } from "../../../support/assert.ts";
import { postgresBin, sharedPostgres, startPostgres } from "../../../support/postgres_server.ts";

const BIN = postgresBin();

const password = (url: string) => /:([0-9a-f]+)@/.exec(url)![1];

async function errorCode(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
  return "OK";
}

Deno.test({
  name:
    "private PostgreSQL: password logins only, each server its own, on loopback; data survives a halt; clients see it down",
  ignore: BIN === null,
  fn: async () => {
    const server = await startPostgres(BIN!);
    const client = () => new pg.Client({ connectionString: server.url });
    try {
      const wrong = new pg.Client({
        connectionString: server.url.replace(/:([0-9a-f]+)@/, ":nope@"),
      });
      assertEquals(await errorCode(() => wrong.connect()), "28P01", "a wrong password is refused");
      await wrong.end().catch(() => {});
      const first = client();
      await first.connect();
      const version = Number(
        (await first.query("SHOW server_version_num")).rows[0].server_version_num,
      );
      assert(version >= 150_000, `PostgreSQL 15 or later (${version})`);
      assertEquals(
        (await first.query("SHOW listen_addresses")).rows[0].listen_addresses,
        "127.0.0.1",
      );
      await first.query("CREATE TABLE kept(value TEXT)");
      await first.query("INSERT INTO kept VALUES ($1)", ["before the halt"]);
      await first.end();
      await server.halt();
      const down = client();
      assertEquals(await errorCode(() => down.connect()), "ECONNREFUSED");
      await down.end().catch(() => {});
      await server.start();
      const again = client();
      await again.connect();
      assertEquals((await again.query("SELECT value FROM kept")).rows, [{
        value: "before the halt",
      }]);
      await again.end();
      // Servers copy one data folder made by `initdb`, yet each has a password of its own (the
      // shared server of the process is one such copy).
      const second = await sharedPostgres(BIN!);
      assert(await sharedPostgres(BIN!) === second, "one shared server per process");
      {
        const borrowed = new pg.Client({
          connectionString: second.url.replace(/:([0-9a-f]+)@/, `:${password(server.url)}@`),
        });
        assertEquals(await errorCode(() => borrowed.connect()), "28P01", "another's password");
        await borrowed.end().catch(() => {});
        assert(password(second.url) !== password(server.url));
        const own = new pg.Client({ connectionString: second.url });
        await own.connect();
        assertEquals((await own.query("SELECT to_regclass('kept') AS kept")).rows, [{
          kept: null,
        }]);
        await own.end();
        // Two asks for one name are two databases; the shared server cannot be taken away.
        const [a, b] = [await second.createDatabase("same"), await second.createDatabase("same")];
        assert(a !== b, a);
        assert((await errorCode(() => second.halt())).includes("stays up"), "halt refused");
        await second.stop();
        const still = new pg.Client({ connectionString: b });
        await still.connect();
        await still.end();
      }
    } finally {
      await server.stop();
    }
    const gone = new pg.Client({ connectionString: server.url });
    assert((await errorCode(() => gone.connect())) !== "OK", "stopped for good");
    await gone.end().catch(() => {});
  },
});
