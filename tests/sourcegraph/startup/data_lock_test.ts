import { join } from "node:path";
import { assert, assertEquals, assertIncludes, assertRejects } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import {
  type RunningService,
  startFailure,
  startService,
} from "../../support/sourcegraph_service.ts";
import { LOCK_FILE, lockDataFolder } from "../../../sourcegraph/startup/data_lock.ts";

// One data folder for the cases with a running service: a SIGKILLed service's successor holds
// it, and the refusals beside that holder are checked while it serves.
Deno.test("data lock: one data folder and its holder, case by case", async (t) => {
  const parent = await tempDir("sg-lock-");
  try {
    const repo = await createRepo({ "a.txt": "alpha\n", ".gitignore": ".sourcegraph/\n" }, {
      parent,
      name: "project",
    });
    const lockPath = join(repo.path, ".sourcegraph", LOCK_FILE);
    const killed = await startService(repo.path);
    Deno.kill(killed.pid, "SIGKILL");
    const status = await killed.stop();
    assertEquals(status.signal, "SIGKILL");
    // The dead holder's record is still in the file: only the kernel's lock went away.
    assertIncludes(await Deno.readTextFile(lockPath), `"pid":${killed.pid}`);
    const next = await startService(repo.path);
    try {
      await t.step(
        "the lock of a SIGKILLed service is taken over by the next start, which then holds it",
        () => takenOver(next, repo.path),
      );
      await t.step(
        "a second service on the same data folder exits at once with one line naming the holder's PID and address; the first keeps serving",
        () => secondRefused(next, repo.path),
      );
      await t.step(
        "a symlink put in place of a held lock file is refused with one line; the file it points to is untouched and the first service keeps serving",
        () => symlinkRefused(next, { repo: repo.path, parent }),
      );
    } finally {
      const stopped = await next.stop();
      assertEquals([stopped.code, stopped.signal], [0, null], next.log.join("\n"));
    }
    // Stopped, the folder is free again.
    const again = lockDataFolder(join(repo.path, ".sourcegraph"));
    assertEquals(again.kind, "held");
    if (again.kind === "held") again.lock.release();
  } finally {
    await removeDir(parent);
  }
});

async function takenOver(next: RunningService, repo: string): Promise<void> {
  const lockPath = join(repo, ".sourcegraph", LOCK_FILE);
  const port = new URL(next.url).port;
  const record = JSON.parse(await Deno.readTextFile(lockPath));
  assertEquals(record, { pid: next.pid, address: `127.0.0.1:${port}` });
  const read = await fetch(`${next.url}/sourcegraph/v1/repo/read?repo=local/project`, {
    method: "POST",
    body: JSON.stringify({ Path: "a.txt" }),
  });
  assertEquals((await read.json()).Content, "alpha\n");
  // And it holds the folder: another taker is refused while it runs.
  const taker = lockDataFolder(join(repo, ".sourcegraph"));
  assertEquals(taker.kind === "busy" ? taker.holder : null, {
    pid: next.pid,
    address: `127.0.0.1:${port}`,
  });
}

async function secondRefused(first: RunningService, repo: string): Promise<void> {
  const port = new URL(first.url).port;
  // Another port, as `npm start -- --port 8788` beside a running service.
  const refused = await startFailure(repo);
  const lines = refused.replace(/^service exited: /, "").split("\n");
  const busy = lines.filter((line) => line.includes("is in use by"));
  assertEquals(busy.length, 1, refused);
  assertIncludes(busy[0], `PID ${first.pid}`);
  assertIncludes(busy[0], `listening on 127.0.0.1:${port}`);
  assertIncludes(busy[0], join(repo, ".sourcegraph"));
  // It stopped before doing anything with the folder or the port.
  for (const word of ["registered", "listening on http", "serving", "cannot listen"]) {
    assert(!lines.some((line) => line.includes(word)), `${word}:\n${refused}`);
  }
  // The same port: the folder is named first, not the port.
  const samePort = await startFailure(repo, {}, { port: Number(port) });
  assertIncludes(samePort, `in use by another service (PID ${first.pid}`);
  const health = await fetch(`${first.url}/healthz`);
  await health.body?.cancel();
  assertEquals(health.status, 200);
  const listed = await (await fetch(`${first.url}/sourcegraph/v1/repos`)).json();
  assertEquals(listed.Repositories.map((r: { Repo: string }) => r.Repo), ["local/project"]);
}

async function symlinkRefused(
  first: RunningService,
  paths: { repo: string; parent: string },
): Promise<void> {
  // Outside the data folder, and outside what the service may write.
  const victim = join(paths.parent, "victim.txt");
  await Deno.writeTextFile(victim, "precious\n");
  const lockPath = join(paths.repo, ".sourcegraph", LOCK_FILE);
  await Deno.rename(lockPath, `${lockPath}.orig`);
  await Deno.symlink(victim, lockPath);
  const refused = await startFailure(paths.repo);
  const lines = refused.replace(/^service exited: /, "").split("\n");
  const named = lines.filter((line) => line.includes(lockPath));
  assertEquals(named.length, 1, refused);
  assertIncludes(named[0], `${lockPath} is a symlink, not this data folder's lock file`);
  assertIncludes(named[0], `remove ${lockPath} and start again`);
  for (const word of ["registered", "listening on http", "serving"]) {
    assert(!lines.some((line) => line.includes(word)), `${word}:\n${refused}`);
  }
  assertEquals(await Deno.readTextFile(victim), "precious\n");
  assert((await Deno.lstat(lockPath)).isSymlink);
  const health = await fetch(`${first.url}/healthz`);
  await health.body?.cancel();
  assertEquals(health.status, 200);
  // The held file put back (the holder's lock is on it), for the checks after the stop.
  await Deno.remove(lockPath);
  await Deno.rename(`${lockPath}.orig`, lockPath);
}

Deno.test("data lock: a lock file that is a symlink, folder, FIFO or hard link is refused before anything is opened for writing", async () => {
  const parent = await tempDir("sg-lock-");
  try {
    const data = join(parent, "data");
    await Deno.mkdir(data);
    const lockPath = join(data, LOCK_FILE);
    const outside = join(parent, "outside.txt");
    const reset = async () => {
      await Deno.remove(lockPath, { recursive: true }).catch(() => {});
      await Deno.writeTextFile(outside, "outside\n");
    };
    const cases: [string, () => Promise<unknown>, string][] = [
      ["a symlink to a file", () => Deno.symlink(outside, lockPath), "is a symlink"],
      ["a dangling symlink", () => Deno.symlink(join(parent, "nothing"), lockPath), "is a symlink"],
      ["a folder", () => Deno.mkdir(lockPath), "is not a regular file"],
      [
        "a FIFO",
        () => new Deno.Command("mkfifo", { args: [lockPath] }).output(),
        "is not a regular file",
      ],
      ["a hard link", () => Deno.link(outside, lockPath), "has other hard links"],
    ];
    for (const [what, make, problem] of cases) {
      await reset();
      await make();
      const outcome = lockDataFolder(data);
      assertEquals(outcome, {
        kind: "refused",
        problem: `${lockPath} ${problem}, not this data folder's lock file; make sure no service ` +
          `uses ${data}, remove ${lockPath} and start again`,
      }, what);
      assertEquals(await Deno.readTextFile(outside), "outside\n", what);
    }
    // The dangling symlink was not followed to create its target.
    await assertRejects(() => Deno.lstat(join(parent, "nothing")), Deno.errors.NotFound);
    // Removed as the line says, the folder is taken with a fresh lock file.
    await reset();
    const taken = lockDataFolder(data);
    assertEquals(taken.kind, "held");
    if (taken.kind === "held") taken.lock.release();
    const stat = await Deno.lstat(lockPath);
    assertEquals([stat.isFile, stat.nlink, stat.mode! & 0o777], [true, 1, 0o600]);
    assertEquals(JSON.parse(await Deno.readTextFile(lockPath)), { pid: Deno.pid, address: null });
  } finally {
    await removeDir(parent);
  }
});
