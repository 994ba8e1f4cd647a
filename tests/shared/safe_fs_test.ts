import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import * as fs from "node:fs";
import { join } from "node:path";
import {
  acquireLockFile,
  atomicReplace,
  ensurePrivateDir,
  identityOf,
  probeSymlinkGuard,
  publishFile,
  readPinned,
  SafeFsError,
  splitRelativePath,
  tempPathBeside,
} from "../../shared/safe_fs.ts";
import { removeDir, tempDir } from "../support/git_repo.ts";
import { readLine, spawnHelper } from "../support/processes.ts";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function refusal(fn: () => unknown): string {
  return assertThrows(fn, SafeFsError).code;
}

async function withTree(fn: (root: string, parent: string) => Promise<void> | void): Promise<void> {
  const parent = await tempDir();
  const root = join(parent, "root");
  fs.mkdirSync(join(root, "dir"), { recursive: true });
  fs.writeFileSync(join(root, "dir", "file.txt"), "inside\n");
  fs.mkdirSync(join(parent, "outside"));
  fs.writeFileSync(join(parent, "outside", "file.txt"), "OUTSIDE SECRET\n");
  try {
    await fn(root, parent);
  } finally {
    await removeDir(parent);
  }
}

Deno.test("readPinned reads a regular file and reports its identity", () =>
  withTree((root) => {
    const read = readPinned(root, "dir/file.txt", { maxBytes: 1024 });
    assertEquals(text(read.bytes), "inside\n");
    assertEquals(read.identity, identityOf(join(root, "dir", "file.txt")));
  }));

Deno.test("readPinned refuses a final symlink, a symlinked parent and a symlinked root", () =>
  withTree((root, parent) => {
    fs.symlinkSync(join(parent, "outside", "file.txt"), join(root, "dir", "link.txt"));
    fs.symlinkSync("file.txt", join(root, "dir", "relative-link.txt"));
    fs.symlinkSync(join(parent, "outside"), join(root, "linked"));
    fs.symlinkSync(root, join(parent, "root-link"));
    assertEquals(refusal(() => readPinned(root, "dir/link.txt", { maxBytes: 1024 })), "SYMLINK");
    assertEquals(
      refusal(() => readPinned(root, "dir/relative-link.txt", { maxBytes: 1024 })),
      "SYMLINK",
    );
    assertEquals(refusal(() => readPinned(root, "linked/file.txt", { maxBytes: 1024 })), "SYMLINK");
    assertEquals(
      refusal(() => readPinned(join(parent, "root-link"), "dir/file.txt", { maxBytes: 1024 })),
      "SYMLINK",
    );
  }));

Deno.test("readPinned refuses a hardlinked file under both of its names", () =>
  withTree((root, parent) => {
    fs.linkSync(join(parent, "outside", "file.txt"), join(root, "dir", "hard.txt"));
    assertEquals(refusal(() => readPinned(root, "dir/hard.txt", { maxBytes: 1024 })), "HARDLINK");
    fs.linkSync(join(root, "dir", "file.txt"), join(parent, "copy.txt"));
    assertEquals(refusal(() => readPinned(root, "dir/file.txt", { maxBytes: 1024 })), "HARDLINK");
  }));

Deno.test("readPinned refuses a FIFO without blocking, a folder and a device", async () => {
  await withTree(async (root) => {
    const fifo = await new Deno.Command("mkfifo", { args: [join(root, "dir", "pipe")] }).output();
    assert(fifo.success, "mkfifo failed");
    // Returning at all is the proof: a blocking open of a FIFO with no writer never returns.
    assertEquals(refusal(() => readPinned(root, "dir/pipe", { maxBytes: 1024 })), "NOT_REGULAR");
    assertEquals(refusal(() => readPinned(root, "dir", { maxBytes: 1024 })), "NOT_REGULAR");
    if (Deno.uid() === 0) {
      const node = join(root, "dir", "null");
      const made = await new Deno.Command("mknod", { args: [node, "c", "1", "3"] }).output();
      assert(made.success, "mknod failed");
      assertEquals(refusal(() => readPinned(root, "dir/null", { maxBytes: 1024 })), "NOT_REGULAR");
    }
    // Deno wants --allow-all to even lstat /dev: refused, never read.
    assertEquals(refusal(() => readPinned("/dev", "null", { maxBytes: 1024 })), "IO_FAILED");
  });
});

Deno.test("readPinned enforces maxBytes at and past the edge", () =>
  withTree((root) => {
    assertEquals(readPinned(root, "dir/file.txt", { maxBytes: 7 }).bytes.length, 7);
    assertEquals(refusal(() => readPinned(root, "dir/file.txt", { maxBytes: 6 })), "TOO_LARGE");
    fs.writeFileSync(join(root, "empty"), "");
    assertEquals(readPinned(root, "empty", { maxBytes: 0 }).bytes.length, 0);
  }));

Deno.test("unsafe relative paths and missing files are refused with their codes", () =>
  withTree((root) => {
    for (
      const path of [
        "",
        "/etc/passwd",
        "../x",
        "dir/../dir/file.txt",
        "dir//file.txt",
        "./dir",
        "dir/",
        "a\0b",
        "x".repeat(4097),
      ]
    ) {
      assertEquals(refusal(() => readPinned(root, path, { maxBytes: 1024 })), "UNSAFE_PATH", path);
    }
    assertEquals(refusal(() => readPinned(root, "dir/none.txt", { maxBytes: 1024 })), "NOT_FOUND");
    assertEquals(
      refusal(() => readPinned(root, "dir/file.txt/x", { maxBytes: 1024 })),
      "NOT_FOUND",
    );
    assertEquals(splitRelativePath("a/b c/d.txt"), ["a", "b c", "d.txt"]);
  }));

Deno.test("a replaced root is refused when its identity was pinned", () =>
  withTree((root, parent) => {
    const pinned = identityOf(root);
    assertEquals(
      text(readPinned(root, "dir/file.txt", { maxBytes: 64, rootIdentity: pinned }).bytes),
      "inside\n",
    );
    fs.renameSync(root, join(parent, "old-root"));
    fs.mkdirSync(join(root, "dir"), { recursive: true });
    fs.writeFileSync(join(root, "dir", "file.txt"), "replacement\n");
    assertEquals(
      refusal(() => readPinned(root, "dir/file.txt", { maxBytes: 64, rootIdentity: pinned })),
      "CHANGED",
    );
  }));

Deno.test("a parent folder swapped for a symlink in a tight loop never yields outside bytes", async () => {
  await withTree(async (root, parent) => {
    fs.mkdirSync(join(root, "a"));
    fs.writeFileSync(join(root, "a", "file.txt"), "inside\n");
    // Deno creates symlinks only with unscoped read and write.
    const attacker = spawnHelper("swap_attacker.ts", [root, join(parent, "outside"), "20000"], {
      read: true,
      write: true,
    });
    try {
      assertEquals(await readLine(attacker), "ready");
      const outcomes = new Map<string, number>();
      // At least 5000 attempts, and on a loaded machine more, until one read
      // lands between swaps (bounded by time so a broken reader still fails).
      const until = Date.now() + 15_000;
      for (let i = 0; i < 5000 || (!outcomes.has("read") && Date.now() < until); i++) {
        let outcome: string;
        try {
          const bytes = text(readPinned(root, "a/file.txt", { maxBytes: 1024 }).bytes);
          assertEquals(bytes, "inside\n", "outside bytes were returned");
          outcome = "read";
        } catch (error) {
          if (!(error instanceof SafeFsError)) throw error;
          outcome = error.code;
        }
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
      // The race was live: some reads succeeded and some were refused.
      assert((outcomes.get("read") ?? 0) > 0, `no read succeeded: ${[...outcomes]}`);
      const attempts = [...outcomes.values()].reduce((sum, n) => sum + n, 0);
      assert(
        (outcomes.get("read") ?? 0) < attempts,
        `the attacker never interfered: ${[...outcomes]}`,
      );
    } finally {
      attacker.kill("SIGKILL");
      await attacker.status;
    }
  });
});

Deno.test("ensurePrivateDir creates 0700 folders and verifies existing ones", async () => {
  const base = await tempDir();
  try {
    const made = ensurePrivateDir(base, ["cache", "tool"]);
    assertEquals(made, join(base, "cache", "tool"));
    assertEquals(fs.statSync(join(base, "cache")).mode & 0o777, 0o700);
    assertEquals(fs.statSync(made).mode & 0o777, 0o700);
    assertEquals(ensurePrivateDir(base, ["cache", "tool"], { create: false }), made);
    assertEquals(refusal(() => ensurePrivateDir(base, ["absent"], { create: false })), "NOT_FOUND");
    assertEquals(refusal(() => ensurePrivateDir("relative", ["x"])), "UNSAFE_PATH");
    assertEquals(refusal(() => ensurePrivateDir(base, [".."])), "UNSAFE_PATH");
    assertEquals(refusal(() => ensurePrivateDir(base, ["a/b"])), "UNSAFE_PATH");
  } finally {
    await removeDir(base);
  }
});

Deno.test("ensurePrivateDir refuses open modes, foreign owners, files and symlinks", async () => {
  const base = await tempDir();
  try {
    fs.mkdirSync(join(base, "open"), { mode: 0o700 });
    fs.chmodSync(join(base, "open"), 0o755);
    assertEquals(refusal(() => ensurePrivateDir(base, ["open"])), "NOT_PRIVATE");
    fs.chmodSync(join(base, "open"), 0o710);
    assertEquals(refusal(() => ensurePrivateDir(base, ["open"])), "NOT_PRIVATE");
    fs.writeFileSync(join(base, "file"), "");
    assertEquals(refusal(() => ensurePrivateDir(base, ["file"])), "NOT_PRIVATE");
    fs.mkdirSync(join(base, "real"), { mode: 0o700 });
    fs.symlinkSync(join(base, "real"), join(base, "link"));
    assertEquals(refusal(() => ensurePrivateDir(base, ["link"])), "SYMLINK");
    assertEquals(refusal(() => ensurePrivateDir(join(base, "link"), ["x"])), "SYMLINK");
    if (Deno.uid() === 0) {
      fs.mkdirSync(join(base, "foreign"), { mode: 0o700 });
      fs.chownSync(join(base, "foreign"), 4242, 4242);
      assertEquals(refusal(() => ensurePrivateDir(base, ["foreign"])), "NOT_PRIVATE");
    }
  } finally {
    await removeDir(base);
  }
});

Deno.test("atomicReplace writes a private file, replaces it whole, and leaves no temp file", async () => {
  const base = await tempDir();
  try {
    const path = join(base, "state.json");
    atomicReplace(path, new TextEncoder().encode("one"));
    assertEquals(fs.readFileSync(path, "utf8"), "one");
    assertEquals(fs.statSync(path).mode & 0o777, 0o600);
    atomicReplace(path, new TextEncoder().encode("two"));
    assertEquals(fs.readFileSync(path, "utf8"), "two");
    assertEquals(fs.readdirSync(base), ["state.json"]);

    fs.mkdirSync(join(base, "busy"));
    fs.writeFileSync(join(base, "busy", "keep"), "kept");
    assertEquals(refusal(() => atomicReplace(join(base, "busy"), new Uint8Array(1))), "IO_FAILED");
    assertEquals(fs.readFileSync(join(base, "busy", "keep"), "utf8"), "kept");
    assertEquals(fs.readdirSync(base).sort(), ["busy", "state.json"]);
  } finally {
    await removeDir(base);
  }
});

Deno.test("publishFile moves a finished temp file over the published one", async () => {
  const base = await tempDir();
  try {
    const path = join(base, "index.sqlite3");
    fs.writeFileSync(path, "old build");
    const temp = tempPathBeside(path);
    assert(temp.startsWith(join(base, ".index.sqlite3.")) && temp.endsWith(".tmp"));
    assert(temp !== tempPathBeside(path), "temp names must not repeat");
    fs.writeFileSync(temp, "new build", { mode: 0o600 });
    publishFile(temp, path);
    assertEquals(fs.readFileSync(path, "utf8"), "new build");
    assertEquals(fs.readdirSync(base), ["index.sqlite3"]);
    assertEquals(refusal(() => publishFile(join(base, "missing.tmp"), path)), "IO_FAILED");
    assertEquals(fs.readFileSync(path, "utf8"), "new build");
  } finally {
    await removeDir(base);
  }
});

Deno.test("SIGKILL during atomic replacement always leaves one whole version", async () => {
  const base = await tempDir();
  try {
    const path = join(base, "state.bin");
    // A published version before the first writer: a kill before its first
    // replacement must leave this one (a busy machine may kill that early).
    atomicReplace(path, new Uint8Array(1 << 20).fill(0x7a));
    for (let round = 0; round < 20; round++) {
      const writer = spawnHelper("replace_writer.ts", ["write", path], {
        read: [base],
        write: [base],
      });
      assertEquals(await readLine(writer), "writing");
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 40));
      writer.kill("SIGKILL");
      await writer.status;
      const bytes = fs.readFileSync(path);
      assertEquals(bytes.length, 1 << 20, `round ${round}: partial file`);
      assert(bytes.every((byte) => byte === bytes[0]), `round ${round}: mixed contents`);
    }
  } finally {
    await removeDir(base);
  }
});

Deno.test("lock files are exclusive, private, and fail closed after a SIGKILL", async () => {
  const base = await tempDir();
  try {
    const path = join(base, "writer.lock");
    const lock = acquireLockFile(path, '{"pid":1}');
    assertEquals(fs.readFileSync(path, "utf8"), '{"pid":1}');
    assertEquals(fs.statSync(path).mode & 0o777, 0o600);
    assertEquals(refusal(() => acquireLockFile(path, "{}")), "LOCKED");
    lock.release();
    lock.release();
    assertEquals(fs.existsSync(path), false);

    const holder = spawnHelper("replace_writer.ts", ["lock", path], {
      read: [base],
      write: [base],
    });
    assertEquals(await readLine(holder), "locked");
    holder.kill("SIGKILL");
    await holder.status;
    assertEquals(refusal(() => acquireLockFile(path, "{}")), "LOCKED");
    assertEquals(JSON.parse(fs.readFileSync(path, "utf8")).pid, holder.pid);
    // The documented recovery: remove exactly that lock once its process is gone.
    fs.unlinkSync(path);
    acquireLockFile(path, "{}").release();
  } finally {
    await removeDir(base);
  }
});

Deno.test("the symlink guard probe passes here, and Deno drops O_NOFOLLOW under scoped flags", async () => {
  const base = await tempDir();
  try {
    const probe = probeSymlinkGuard(base);
    // This test process runs without --allow-all, where Deno 2.9 resolves
    // symlinks before opening; the guard must not depend on the flag.
    assertEquals(probe.runtimeHonoursNoFollow, false);
    assertEquals(fs.readdirSync(base), []);
    assertEquals(refusal(() => probeSymlinkGuard(join(base, "missing"))), "GUARD_UNSUPPORTED");
  } finally {
    await removeDir(base);
  }
});
