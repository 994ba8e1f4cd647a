/**
 * One driver's workload for the driver comparison (run by
 * `tests/bench/postgres_driver_bench.ts` in its own process with the flags
 * under test): point queries one at a time, the same from 16 concurrent
 * callers, and a transaction of 1,000 inserts. Prints one JSON line.
 *
 * Run: deno run --allow-net=127.0.0.1:PORT tests/bench/postgres/driver_workload.ts DRIVER URL
 *
 * @module
 */

const [driver, url] = Deno.args;
const ROWS = 1_000;
const SEQUENTIAL = 2_000;
const CALLERS = 16;
const PER_CALLER = 250;

interface Db {
  query(text: string, params: unknown[]): Promise<unknown[]>;
  transaction(work: (query: Db["query"]) => Promise<void>): Promise<void>;
  end(): Promise<void>;
}

async function open(): Promise<Db> {
  if (driver === "postgres") {
    const postgres = (await import("postgres")).default;
    const sql = postgres(url, { max: 8, onnotice: () => {} });
    return {
      query: (text, params) => sql.unsafe(text, params as never[]) as Promise<unknown[]>,
      transaction: async (work) => {
        await sql.begin((tx) => work((text, params) => tx.unsafe(text, params as never[])));
      },
      end: () => sql.end(),
    };
  }
  const pg = (await import("pg")).default;
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  return {
    query: async (text, params) => (await pool.query(text, params)).rows,
    transaction: async (work) => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await work(async (text, params) => (await client.query(text, params)).rows);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      } finally {
        client.release();
      }
    },
    end: () => pool.end(),
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

const started = performance.now();
const db = await open();
const table = `bench_${driver}`;
await db.query(`DROP TABLE IF EXISTS ${table}`, []);
await db.query(`CREATE TABLE ${table}(id INTEGER PRIMARY KEY, name TEXT NOT NULL)`, []);
const connectMs = performance.now() - started;
const insertStart = performance.now();
await db.transaction(async (query) => {
  for (let i = 0; i < ROWS; i++) await query(`INSERT INTO ${table} VALUES ($1, $2)`, [i, `n${i}`]);
});
const insertMs = performance.now() - insertStart;
const one: number[] = [];
for (let i = 0; i < SEQUENTIAL; i++) {
  const at = performance.now();
  const rows = await db.query(`SELECT id, name FROM ${table} WHERE id = $1`, [i % ROWS]);
  one.push(performance.now() - at);
  if (rows.length !== 1) throw new Error("a row is missing");
}
const concurrentStart = performance.now();
const many: number[] = [];
await Promise.all(Array.from({ length: CALLERS }, async (_, k) => {
  for (let i = 0; i < PER_CALLER; i++) {
    const at = performance.now();
    await db.query(`SELECT id, name FROM ${table} WHERE id = $1`, [(k * 31 + i) % ROWS]);
    many.push(performance.now() - at);
  }
}));
const concurrentMs = performance.now() - concurrentStart;
await db.query(`DROP TABLE ${table}`, []);
await db.end();
console.log(JSON.stringify({
  driver,
  connectMs,
  insertMs,
  p50: percentile(one, 0.5),
  p99: percentile(one, 0.99),
  concurrentPerSecond: (CALLERS * PER_CALLER) / (concurrentMs / 1000),
  concurrentP99: percentile(many, 0.99),
  rssMiB: Deno.memoryUsage().rss / 1024 / 1024,
}));
