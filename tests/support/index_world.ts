/**
 * What the search index tests stand on: a registration record and a bare
 * mirror of a source repository where the service would keep it.
 *
 * @module
 */

import { join } from "node:path";
import { MirrorReaders } from "../../sourcegraph/git/mirror_readers.ts";
import { IndexDatabase } from "../../sourcegraph/search/index/index_database.ts";
import type { IndexFile } from "../../sourcegraph/search/index/index_reader.ts";
import type { RepositoryRecord } from "../../sourcegraph/store/control_store.ts";
import { git } from "./git_repo.ts";

/** A registration of `name` with id `id` (path groups optional). */
export function testRecord(
  id: number,
  options: { name?: string; pathGroups?: RepositoryRecord["pathGroups"] } = {},
): RepositoryRecord {
  return {
    id,
    name: options.name ?? "org/indexed",
    source: "",
    publicRead: true,
    disabled: false,
    policy: { branches: ["main"] },
    pathGroups: options.pathGroups ?? [],
    syncIntervalMinutes: 5,
  };
}

/**
 * Clones `source` bare to `<data>/mirrors/<id>.git`; the readers of that data folder. A
 * `packed` clone goes through Git's transport, as the service's fetches do: its objects
 * arrive in one pack, not as hard links to the source's loose objects, which cost an open,
 * a map and an inflate each on every read (the parity test's thousand files: 100,000 opens,
 * 8 of its 16 processor-seconds in the kernel). A source of a few files is cloned locally:
 * the transport's processes would cost more than its reads.
 */
export async function mirrorFor(
  source: string,
  options: { data: string; repo: RepositoryRecord; packed?: boolean },
): Promise<{ mirror: string; mirrors: MirrorReaders }> {
  await Deno.mkdir(join(options.data, "mirrors"), { recursive: true });
  const mirror = join(options.data, "mirrors", `${options.repo.id}.git`);
  const transport = options.packed ? ["--no-local"] : [];
  await git(options.data, ["clone", "-q", "--bare", ...transport, source, mirror]);
  return { mirror, mirrors: new MirrorReaders(options.data) };
}

/** An index file at `path` holding one chunk (id 1) of `text`, made and closed. */
export function oneChunkIndex(path: string, text: string): IndexFile {
  const index = new IndexDatabase(path);
  index.db.prepare("INSERT INTO chunks(hash, text) VALUES (?, ?)").run(
    new Uint8Array([1]),
    new TextEncoder().encode(text),
  );
  index.close();
  return { path, opening: index.opening };
}
