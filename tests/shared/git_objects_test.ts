import { assert, assertEquals, assertRejects, assertThrows } from "../support/assert.ts";
import { join } from "node:path";
import { GitError } from "../../shared/git.ts";
import { GitObjectReader, streamBlobs } from "../../shared/git_objects.ts";
import { createRepo, removeDir } from "../support/git_repo.ts";
import { unhandledRejections } from "../support/unhandled_rejections.ts";

Deno.test("the batch reader returns exact bytes, types and sizes for many objects", async () => {
  const files: Record<string, string | Uint8Array> = {
    "empty.txt": "",
    "crlf.txt": "a\r\nb\r\n",
    "binary.bin": new Uint8Array([0, 1, 2, 10, 255, 10]),
    "dir/space name.md": "spaces\n",
  };
  for (let i = 0; i < 200; i++) files[`many/f${i}.txt`] = `file ${i}\n`.repeat(i);
  const repo = await createRepo(files);
  const reader = new GitObjectReader({ cwd: repo.path });
  try {
    // Git's own object ids of the files, asked in one call.
    const names = Object.keys(files).map((path) => `HEAD:${path}`);
    const oids = (await repo.git("rev-parse", ...names)).trim().split("\n");
    assertEquals(oids.length, names.length);
    for (const [i, [path, content]] of Object.entries(files).entries()) {
      const expected = typeof content === "string" ? new TextEncoder().encode(content) : content;
      const read = await reader.read(`HEAD:${path}`);
      assert(read.status === "ok", `${path} not read`);
      assertEquals(read.type, "blob");
      assertEquals(read.size, expected.length);
      assertEquals(read.bytes, expected);
      assertEquals(read.oid, oids[i]);
    }
    const tree = await reader.info("HEAD^{tree}");
    assertEquals(tree.status === "ok" && tree.type, "tree");
    // Many at once: the same reads in the order asked, a missing and a too large one in
    // place, the contents in several runs of at most 2 KiB (one larger file on its own).
    const asked = [...names, "HEAD:nope.txt", "HEAD:many/f199.txt"];
    const many = await reader.readMany(asked, { maxBytes: 1500, runBytes: 2048 });
    assertEquals(many.length, asked.length);
    for (const [i, name] of asked.entries()) {
      const one = await reader.read(name, { maxBytes: 1500 });
      assertEquals(many[i], one, name);
    }
    assertEquals(many.at(-2)!.status, "missing");
    assertEquals(many.at(-1)!.status, "too_large");
    assertEquals(await reader.readMany([]), []);
    // Answers larger than a pipe holds, lines longer than a read (a missing name's answer
    // repeats the name: about 400 KB each way), still each in step with its request.
    const long = Array.from({ length: 100 }, (_, i) => `HEAD:${"x".repeat(4000)}${i}`);
    const flood = await reader.readMany(long);
    assertEquals(flood, long.map((name) => ({ status: "missing", name })));
  } finally {
    await reader.close();
    await removeDir(join(repo.path, ".."));
  }
});

Deno.test("concurrent requests are served serially and in order", async () => {
  const repo = await createRepo({ "a.txt": "a".repeat(100_000), "b.txt": "b\n" });
  const reader = new GitObjectReader({ cwd: repo.path });
  try {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => reader.read(i % 2 ? "HEAD:b.txt" : "HEAD:a.txt")),
    );
    results.forEach((read, i) => {
      assert(read.status === "ok");
      assertEquals(read.size, i % 2 ? 2 : 100_000);
    });
  } finally {
    await reader.close();
    await removeDir(join(repo.path, ".."));
  }
});

Deno.test("missing and oversized objects are typed results", async () => {
  const repo = await createRepo({ "big.txt": "x".repeat(4096) });
  const reader = new GitObjectReader({ cwd: repo.path });
  try {
    const missing = await reader.read("0123456789012345678901234567890123456789");
    assertEquals(missing.status, "missing");
    assertEquals((await reader.info("HEAD:nope.txt")).status, "missing");
    const atCap = await reader.read("HEAD:big.txt", { maxBytes: 4096 });
    assertEquals(atCap.status, "ok");
    const over = await reader.read("HEAD:big.txt", { maxBytes: 4095 });
    assertEquals(over.status, "too_large");
    assertEquals(over.status === "too_large" && over.size, 4096);
    // The stream stays in step after a refused read.
    const again = await reader.read("HEAD:big.txt");
    assertEquals(again.status === "ok" && again.bytes.length, 4096);
  } finally {
    await reader.close();
    await removeDir(join(repo.path, ".."));
  }
});

Deno.test("names that could break the batch protocol are refused", async () => {
  const repo = await createRepo({ "a.txt": "a\n" });
  const reader = new GitObjectReader({ cwd: repo.path });
  try {
    for (const name of ["", "HEAD\ninfo HEAD", "HEAD\r", "HEAD\0", "x".repeat(4097)]) {
      const error = assertThrows(() => reader.info(name), GitError);
      assertEquals(error.code, "GIT_BAD_OBJECT_NAME");
    }
    assertEquals((await reader.info("HEAD")).status, "ok");
  } finally {
    await reader.close();
    await removeDir(join(repo.path, ".."));
  }
});

Deno.test("a closed reader refuses further requests", async () => {
  const repo = await createRepo({ "a.txt": "a\n" });
  const reader = new GitObjectReader({ cwd: repo.path });
  try {
    assertEquals((await reader.info("HEAD")).status, "ok");
    await reader.close();
    const error = await assertRejects(() => reader.info("HEAD"), GitError);
    assertEquals(error.code, "GIT_READER_STOPPED");
  } finally {
    await removeDir(join(repo.path, ".."));
  }
});

Deno.test("a reader outside any repository fails with a GitError, not a crash", async () => {
  const repo = await createRepo({ "a.txt": "a\n" });
  const parent = join(repo.path, "..");
  const reader = new GitObjectReader({ cwd: parent });
  try {
    await assertRejects(() => reader.info("HEAD"), GitError);
    await assertRejects(() => reader.info("HEAD"), GitError);
  } finally {
    await reader.close();
    await removeDir(parent);
  }
});

Deno.test("a request past its deadline fails with GIT_TIMEOUT and the reader recovers", async () => {
  const repo = await createRepo({ "huge.txt": "y".repeat(32 * 1024 * 1024) });
  const slow = new GitObjectReader({ cwd: repo.path, timeoutMs: 1 });
  const normal = new GitObjectReader({ cwd: repo.path });
  try {
    const error = await assertRejects(() => slow.read("HEAD:huge.txt"), GitError);
    assertEquals(error.code, "GIT_TIMEOUT");
    const many = await assertRejects(() => slow.readMany(["HEAD:huge.txt"]), GitError);
    assertEquals(many.code, "GIT_TIMEOUT");
    const read = await normal.read("HEAD:huge.txt");
    assertEquals(read.status === "ok" && read.bytes.length, 32 * 1024 * 1024);
  } finally {
    await slow.close();
    await normal.close();
    await removeDir(join(repo.path, ".."));
  }
});

Deno.test("streamBlobs: many objects in request order, too large and missing ones reported in place", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++) files[`f${i}.txt`] = `content ${i}\n`.repeat(i % 7 + 1);
  files["big.txt"] = "x".repeat(5000);
  const repo = await createRepo(files);
  try {
    // Git's own object ids of big.txt and f299.txt down to f0.txt, asked in one call.
    const names = ["big.txt", ...Array.from({ length: 300 }, (_, i) => `f${299 - i}.txt`)];
    const oids = (await repo.git("rev-parse", ...names.map((path) => `HEAD:${path}`))).trim()
      .split("\n");
    assertEquals(oids.length, 301);
    const wanted = [oids[0], "0".repeat(40), ...oids.slice(1)];
    const seen: string[] = [];
    for await (const blob of streamBlobs(repo.path, { oids: wanted, maxBytes: 4096 })) {
      seen.push(blob.oid);
      if (blob.oid === wanted[0]) {
        assertEquals([blob.status, "size" in blob && blob.size], ["too_large", 5000]);
      } else if (blob.oid === wanted[1]) assertEquals(blob.status, "missing");
      else {
        assert(blob.status === "ok");
        const i = 299 - (seen.length - 3);
        assertEquals(new TextDecoder().decode(blob.bytes), `content ${i}\n`.repeat(i % 7 + 1));
      }
    }
    assertEquals(seen, wanted);
  } finally {
    await removeDir(join(repo.path, ".."));
  }
});

Deno.test("streamBlobs: requests and answers beyond a pipe's buffer come whole and in order, and a reader may stop early", async () => {
  // 200 blobs asked ten times over: 2,000 object ids are 82 KB of requests and
  // the answers about 1.6 MB, more than a pipe holds either way, so Git's
  // buffered output and the requests still being written must interleave.
  const files: Record<string, string> = {};
  for (let i = 0; i < 200; i++) files[`f${i}.txt`] = `${i} `.repeat(100 + (i * 37) % 400);
  const repo = await createRepo(files);
  try {
    const names = Array.from({ length: 2000 }, (_, i) => `f${(i * 7) % 200}.txt`);
    const ids = (await repo.git("rev-parse", ...names.slice(0, 200).map((path) => `HEAD:${path}`)))
      .trim().split("\n");
    const oids = names.map((_, i) => ids[i % 200]);
    let at = 0;
    for await (const blob of streamBlobs(repo.path, { oids, maxBytes: 1 << 20 })) {
      assert(blob.status === "ok" && blob.oid === oids[at]);
      assertEquals(new TextDecoder().decode(blob.bytes), files[names[at]]);
      at++;
    }
    assertEquals(at, 2000);
    for await (const blob of streamBlobs(repo.path, { oids, maxBytes: 1 << 20 })) {
      assertEquals(blob.oid, oids[0]);
      break;
    }
  } finally {
    await removeDir(join(repo.path, ".."));
  }
});

Deno.test("a request whose Git is killed while its writes are still going is a GitError, never an unhandled rejection", async () => {
  // Fifty small objects and a large one: Git is killed by the deadline while the requests are being
  // written, and a write that fails before the read waiting on Git's output ends must not reject
  // with nobody awaiting it (that ends the service's process).
  const files: Record<string, string> = { "huge.txt": "y".repeat(8 * 1024 * 1024) };
  for (let i = 0; i < 50; i++) files[`f${i}.txt`] = `${i}\n`;
  const repo = await createRepo(files);
  const names = Object.keys(files).map((path) => `HEAD:${path}`);
  try {
    const unhandled = await unhandledRejections(async () => {
      for (let i = 0; i < 80; i++) {
        const reader = new GitObjectReader({ cwd: repo.path, timeoutMs: i % 4 });
        try {
          const order = i % 2 === 0 ? names : [...names].reverse();
          for (const call of [() => reader.readMany(order), () => reader.read("HEAD:huge.txt")]) {
            await call().catch((error) => assert(error instanceof GitError, String(error)));
          }
        } finally {
          await reader.close();
        }
      }
    });
    assertEquals(unhandled.map(String), []);
  } finally {
    await removeDir(join(repo.path, ".."));
  }
});
