/**
 * Test helper program: atomically replaces a file with alternating 1 MiB
 * contents ("a"s then "b"s) forever, or holds a lock file, until killed.
 *
 * @module
 */

import { acquireLockFile, atomicReplace } from "../../shared/safe_fs.ts";

const [mode, path] = Deno.args;
if (mode === "lock") {
  acquireLockFile(path, JSON.stringify({ pid: Deno.pid }));
  await Deno.stdout.write(new TextEncoder().encode("locked\n"));
  await new Promise(() => {});
}
const contents = [new Uint8Array(1 << 20).fill(0x61), new Uint8Array(1 << 20).fill(0x62)];
await Deno.stdout.write(new TextEncoder().encode("writing\n"));
for (let i = 0;; i++) atomicReplace(path, contents[i % 2]);
