// The shared SCIP indexes of a cluster in a private PostgreSQL: an index is
// stored in pieces and read back whole as of one snapshot, a replacement is
// all or nothing, an index goes with its retained version and its
// repository, and one whose version went first is refused.
import { SourcegraphError } from "../../../../sourcegraph/errors.ts";
import { PostgresControlStore } from "../../../../sourcegraph/store/postgres/postgres_control_store.ts";
import {
  SCIP_PIECE_BYTES,
  ScipIndexRows,
  type SharedScip,
} from "../../../../sourcegraph/store/postgres/pg_scip_indexes.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { postgresBin, sharedPostgres } from "../../../support/postgres_server.ts";

const BIN = postgresBin();
const [FIRST, SECOND] = ["a".repeat(40), "b".repeat(40)];

// Bytes of `size` whose every piece differs (a piece out of order or lost would show).
function bytesOf(size: number, seed: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => (i * 7 + seed + Math.floor(i / 1000)) % 251);
}

function piecesOf(bytes: Uint8Array): () => Iterable<Uint8Array> {
  return function* () {
    for (let at = 0; at < bytes.length; at += SCIP_PIECE_BYTES) {
      yield bytes.subarray(at, at + SCIP_PIECE_BYTES);
    }
  };
}

async function readBack(rows: ScipIndexRows, index: SharedScip): Promise<Uint8Array | null> {
  const parts: Uint8Array[] = [];
  const found = await rows.read(index, (bytes) => parts.push(bytes.slice()));
  if (!found) return null;
  const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) whole.set(part, (at += part.length) - part.length);
  return whole;
}

Deno.test({
  name:
    "shared SCIP indexes: pieces read back whole, a failed replacement keeps the old one, gone with the version and the repository",
  ignore: BIN === null,
  fn: async () => {
    const server = await sharedPostgres(BIN!);
    const store = await PostgresControlStore.open(await server.createDatabase("scip"), {
      log: () => {},
    });
    try {
      const rows = new ScipIndexRows(store.pool);
      const repo = await store.register({
        name: "org/a",
        source: "/srv/a",
        publicRead: true,
        policy: { branches: ["main"] },
        pathGroups: [],
        syncIntervalMinutes: 5,
      });
      for (const commit of [FIRST, SECOND]) {
        await store.observe(repo.id, { branch: "main", commit, committerTime: 1 });
      }
      const bytes = bytesOf(SCIP_PIECE_BYTES * 2 + 12_345, 1);
      const first = { repositoryId: repo.id, commit: FIRST, digest: "d1", size: bytes.length };
      await rows.put(first, piecesOf(bytes));
      assertEquals(await readBack(rows, first), bytes, "three pieces, in order");

      // A replacement that fails halfway leaves the earlier index whole.
      const failing = function* () {
        yield bytesOf(100, 2);
        throw new Error("the temp file could not be read");
      };
      const broken = await rows.put({ ...first, digest: "d2" }, failing).then(() => null, (e) => e);
      assertEquals((broken as Error)?.message, "the temp file could not be read");
      assertEquals(await readBack(rows, first), bytes);
      assertEquals(await readBack(rows, { ...first, digest: "d2" }), null, "not the asked digest");

      const second = { repositoryId: repo.id, commit: SECOND, digest: "d3", size: 3 };
      await rows.put(second, () => [Uint8Array.of(1, 2, 3)]);
      assertEquals((await rows.list()).map((index) => index.commit).sort(), [FIRST, SECOND]);
      await store.forget(repo.id, [FIRST]); // no longer retained: its index goes
      assertEquals((await rows.list()).map((index) => index.commit), [SECOND]);
      const refused = await rows.put(first, piecesOf(bytes)).then(() => null, (e) => e);
      assert(refused instanceof SourcegraphError, String(refused));
      assertEquals(refused.code, "REVISION_NOT_ELIGIBLE");
      await store.remove(repo.id);
      assertEquals(await rows.list(), []);
      const left = await store.pool.query("SELECT count(*) AS n FROM scip_index_pieces");
      assertEquals(Number(left.rows[0].n), 0, "no piece outlives its index");
    } finally {
      await store.close();
    }
  },
});
