import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { join } from "node:path";
import { GitError, gitHasNoLazyFetch, LARGE_HEAP_ENVIRONMENT, runGit } from "../../shared/git.ts";
import { GitObjectReader } from "../../shared/git_objects.ts";
import { createPromisorClone } from "../support/promisor_clone.ts";
import { createRepo, git, removeDir, tempDir } from "../support/git_repo.ts";
import { spawnHelper } from "../support/processes.ts";

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function writeScript(path: string, body: string): Promise<void> {
  await Deno.writeTextFile(path, `#!/bin/sh\n${body}\n`);
  await Deno.chmod(path, 0o755);
}

Deno.test("runGit reads the repository it is pointed at", async () => {
  const repo = await createRepo({ "a.txt": "alpha\n" });
  try {
    const head = await repo.git("rev-parse", "HEAD");
    const result = await runGit(["rev-parse", "HEAD"], { cwd: repo.path });
    assertEquals(decode(result.stdout).trim(), head);
    assertEquals(result.exitCode, 0);
  } finally {
    await removeDir(join(repo.path, ".."));
  }
});

Deno.test("inherited GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE and GIT_CONFIG_* cannot redirect a call", async () => {
  const parent = await tempDir();
  const target = await createRepo({ "target.txt": "target\n" }, { parent, name: "target" });
  const other = await createRepo({ "other.txt": "other\n" }, { parent, name: "other" });
  const marker = join(parent, "alias-ran");
  const hijack: Record<string, string> = {
    GIT_DIR: join(other.path, ".git"),
    GIT_WORK_TREE: other.path,
    GIT_INDEX_FILE: join(other.path, ".git", "index"),
    GIT_CONFIG: join(other.path, ".git", "config"),
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "alias.ls-files",
    GIT_CONFIG_VALUE_0: `!touch ${marker}`,
    GIT_CONFIG_PARAMETERS: "'protocol.allow'='always'",
    GIT_CONFIG_GLOBAL: join(other.path, ".git", "config"),
    GIT_OBJECT_DIRECTORY: join(other.path, ".git", "objects"),
    GIT_NAMESPACE: "hijack",
  };
  const saved = new Map(Object.keys(hijack).map((key) => [key, Deno.env.get(key)]));
  try {
    for (const [key, value] of Object.entries(hijack)) Deno.env.set(key, value);
    const head = await runGit(["rev-parse", "HEAD"], { cwd: target.path });
    const files = await runGit(["ls-files", "-z"], { cwd: target.path });
    const top = await runGit(["rev-parse", "--show-toplevel"], { cwd: target.path });
    for (const [key, value] of saved) {
      value === undefined ? Deno.env.delete(key) : Deno.env.set(key, value);
    }
    assertEquals(decode(head.stdout).trim(), await target.git("rev-parse", "HEAD"));
    assertEquals(decode(files.stdout), "target.txt\0");
    assertEquals(decode(top.stdout).trim(), target.path);
    assertEquals(await exists(marker), false);
  } finally {
    for (const [key, value] of saved) {
      value === undefined ? Deno.env.delete(key) : Deno.env.set(key, value);
    }
    await removeDir(parent);
  }
});

Deno.test("hooks and fsmonitor configured in the repository never run", async () => {
  const repo = await createRepo({ "a.txt": "alpha\n" });
  const parent = join(repo.path, "..");
  const hooks = join(parent, "hooks");
  const hookMarker = join(parent, "hook-ran");
  const monitorMarker = join(parent, "fsmonitor-ran");
  try {
    await Deno.mkdir(hooks);
    for (const name of ["pre-commit", "post-commit", "reference-transaction"]) {
      await writeScript(join(hooks, name), `touch ${hookMarker}`);
      await writeScript(join(repo.path, ".git", "hooks", name), `touch ${hookMarker}`);
    }
    await writeScript(join(parent, "monitor.sh"), `touch ${monitorMarker}\nexit 1`);
    await repo.git("config", "core.hooksPath", hooks);
    await repo.git("config", "core.fsmonitor", join(parent, "monitor.sh"));

    await runGit(
      ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"],
      { cwd: repo.path },
    );
    await runGit(["status", "--porcelain"], { cwd: repo.path });
    assertEquals(await exists(hookMarker), false, "a hook ran");
    assertEquals(await exists(monitorMarker), false, "fsmonitor ran");

    // The fixtures are live: plain Git runs both.
    await repo.git("commit", "-q", "--allow-empty", "-m", "y");
    await repo.git("status", "--porcelain");
    assert(await exists(hookMarker), "fixture hook did not run under plain git");
    assert(await exists(monitorMarker), "fixture fsmonitor did not run under plain git");
  } finally {
    await removeDir(parent);
  }
});

Deno.test("a missing object in a partial clone fails and never runs the promisor transport", async () => {
  const parent = await tempDir();
  try {
    const { clone, marker, source } = await createPromisorClone(parent, {
      "a.txt": "lazy content\n",
    });
    const blob = await git(source, ["rev-parse", "HEAD:a.txt"]);

    const error = await assertRejects(
      () => runGit(["cat-file", "-p", blob], { cwd: clone }),
      GitError,
    );
    assertEquals(error.code, "GIT_FAILED");
    // Git's batch reader dies on a missing promisor object rather than fetch it;
    // the reader fails that request and starts a fresh process for the next one.
    const reader = new GitObjectReader({ cwd: clone });
    try {
      await assertRejects(() => reader.read(blob), GitError);
      const commit = await reader.info("HEAD");
      assertEquals(commit.status === "ok" && commit.type, "commit");
    } finally {
      await reader.close();
    }
    assertEquals(await exists(marker), false, "the promisor transport ran");

    // The fixture is live: plain Git lazily fetches through the transport.
    await git(clone, ["cat-file", "-p", blob]);
    assert(await exists(marker), "fixture transport did not run under plain git");
  } finally {
    await removeDir(parent);
  }
});

Deno.test("--no-lazy-fetch is used exactly when this git accepts it", async () => {
  const probe = await new Deno.Command("git", {
    args: ["--no-lazy-fetch", "version"],
    stdout: "null",
    stderr: "null",
  }).output();
  assertEquals(await gitHasNoLazyFetch(), probe.success);
});

Deno.test("the deadline kills a slow call with GIT_TIMEOUT", async () => {
  const repo = await createRepo({ "a.txt": "a\n" });
  try {
    await repo.git("config", "alias.slow", "!sleep 60");
    const started = performance.now();
    const error = await assertRejects(
      () => runGit(["slow"], { cwd: repo.path, timeoutMs: 300 }),
      GitError,
    );
    assertEquals(error.code, "GIT_TIMEOUT");
    assertEquals(error.message, "git timed out");
    // Only the deadline can end the call before the minute-long sleep does.
    assert(performance.now() - started < 30_000, "the deadline did not stop the call");

    const controller = new AbortController();
    const aborted = runGit(["slow"], { cwd: repo.path, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    assertEquals((await assertRejects(() => aborted, GitError)).code, "GIT_TIMEOUT");
  } finally {
    await removeDir(join(repo.path, ".."));
  }
});

Deno.test("stdout and stderr caps apply at and past their edge", async () => {
  const content = "x".repeat(999) + "\n";
  const repo = await createRepo({ "big.txt": content });
  try {
    const blob = await repo.git("rev-parse", "HEAD:big.txt");
    const atCap = await runGit(["cat-file", "blob", blob], {
      cwd: repo.path,
      maxStdoutBytes: 1000,
    });
    assertEquals(atCap.stdout.length, 1000);
    const over = await assertRejects(
      () => runGit(["cat-file", "blob", blob], { cwd: repo.path, maxStdoutBytes: 999 }),
      GitError,
    );
    assertEquals(over.code, "GIT_OUTPUT_LIMIT");

    const noisy = await assertRejects(
      () =>
        runGit(["rev-parse", "z".repeat(20_000)], {
          cwd: repo.path,
          maxStderrBytes: 1000,
        }),
      GitError,
    );
    assertEquals(noisy.code, "GIT_OUTPUT_LIMIT");
  } finally {
    await removeDir(join(repo.path, ".."));
  }
});

Deno.test("a failing command is GIT_FAILED with its exit code; accepted codes pass", async () => {
  const repo = await createRepo({ "a.txt": "a\n" });
  try {
    const first = await repo.git("rev-parse", "HEAD");
    const second = await repo.commit("second");
    const error = await assertRejects(
      () => runGit(["rev-parse", "--verify", "no-such-ref^{commit}"], { cwd: repo.path }),
      GitError,
    );
    assertEquals(error.code, "GIT_FAILED");
    assertEquals(error.exitCode, 128);
    assertEquals(error.message, "git failed");
    assert(!error.message.includes(repo.path));

    const notAncestor = await runGit(["merge-base", "--is-ancestor", second, first], {
      cwd: repo.path,
      okExitCodes: [0, 1],
    });
    assertEquals(notAncestor.exitCode, 1);
  } finally {
    await removeDir(join(repo.path, ".."));
  }
});

Deno.test("a large-heap call gets the allocator setting, other calls do not; the output is the same", async () => {
  const repo = await createRepo({ "a.txt": "one\n" });
  try {
    await repo.write({ "a.txt": "one\ntwo\n" });
    await repo.commit("second");
    // A shell alias prints the variable as Git's own children see it (printenv exits 1 without it).
    const show = ["-c", "alias.tunables=!printenv GLIBC_TUNABLES", "tunables"];
    const tuned = await runGit(show, { cwd: repo.path, okExitCodes: [0, 1], largeHeap: true });
    assertEquals(decode(tuned.stdout).trim(), LARGE_HEAP_ENVIRONMENT.GLIBC_TUNABLES);
    assertEquals(decode(tuned.stdout).trim(), "glibc.malloc.hugetlb=1");
    const plain = await runGit(show, { cwd: repo.path, okExitCodes: [0, 1] });
    assertEquals([plain.exitCode, decode(plain.stdout)], [1, ""]);
    const log = ["log", "-L", "1,2:a.txt", "HEAD"];
    const heavy = await runGit(log, { cwd: repo.path, largeHeap: true });
    assertEquals(decode(heavy.stdout), decode((await runGit(log, { cwd: repo.path })).stdout));
    assert(decode(heavy.stdout).includes("+two"));
  } finally {
    await removeDir(join(repo.path, ".."));
  }
});

Deno.test("stdin bytes reach git", async () => {
  const repo = await createRepo({ "a.txt": "a\n" });
  try {
    const result = await runGit(["hash-object", "--stdin"], {
      cwd: repo.path,
      stdin: new TextEncoder().encode("a\n"),
    });
    assertEquals(decode(result.stdout).trim(), await repo.git("rev-parse", "HEAD:a.txt"));
  } finally {
    await removeDir(join(repo.path, ".."));
  }
});

Deno.test("a missing git binary is GIT_UNAVAILABLE under the narrow flags", async () => {
  const repo = await createRepo({ "a.txt": "a\n" });
  try {
    const run = async (path: string) => {
      const child = spawnHelper("git_probe.ts", [repo.path], {
        run: ["git"],
        env: ["PATH"],
        read: [repo.path],
        childEnv: { PATH: path },
      });
      await child.stdin.close();
      return await child.output();
    };
    const missing = await run("/nonexistent");
    assertEquals(decode(missing.stdout).trim(), "GIT_UNAVAILABLE");
    const present = await run(Deno.env.get("PATH") ?? "/usr/bin:/bin");
    assertEquals(decode(present.stdout).trim(), await repo.git("rev-parse", "HEAD"));
  } finally {
    await removeDir(join(repo.path, ".."));
  }
});
