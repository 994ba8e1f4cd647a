import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals, assertIncludes, waitFor } from "../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../support/git_repo.ts";
import { openSocket, portOf, readUntilClosed } from "../support/raw_http.ts";
import { type RunningService, startService } from "../support/sourcegraph_service.ts";

const TOKEN = "t".repeat(40);
// A short grace keeps the test quick; the service is SIGKILLed only 20 s after SIGTERM.
const GRACE = { SOURCEGRAPH_STOP_GRACE: "2s" };
// The cases that build no index on purpose: no sync starts an index builder process for them.
const NO_INDEX = { SOURCEGRAPH_SEARCH_INDEX: "false" };

/** Processes whose parent chain leads to `pid`, with their command lines. */
async function descendants(pid: number): Promise<{ pid: number; args: string }[]> {
  const out = await new Deno.Command("ps", { args: ["-e", "-o", "pid=,ppid=,args="] }).output();
  const rows = new TextDecoder().decode(out.stdout).split("\n").map((line) => {
    const [child, parent, ...args] = line.trim().split(/\s+/);
    return { pid: Number(child), ppid: Number(parent), args: args.join(" ") };
  });
  const found: { pid: number; args: string }[] = [];
  const parents = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) {
      if (parents.has(row.ppid) && !parents.has(row.pid)) {
        parents.add(row.pid);
        found.push({ pid: row.pid, args: row.args });
        grew = true;
      }
    }
  }
  return found;
}

async function alive(pid: number): Promise<boolean> {
  const out = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] }).output();
  const state = new TextDecoder().decode(out.stdout).trim();
  return out.success && state !== "" && !state.startsWith("Z");
}

/** Stops `service` and checks that it ended by itself, cleanly, and left no child behind. */
async function stopCleanly(
  service: RunningService,
  options: { dataDir: string; children: number[] },
): Promise<void> {
  const status = await service.stop();
  assertEquals([status.code, status.signal], [0, null], service.log.join("\n"));
  assertIncludes(service.log.join("\n"), "stopped");
  for (const pid of options.children) assert(!(await alive(pid)), `child ${pid} outlived the stop`);
  // A clean close checkpoints the WAL into the store file and removes it.
  const wal = join(options.dataDir, "control.sqlite3-wal");
  assert(!existsSync(wal) || statSync(wal).size === 0, "the control store was not closed");
}

async function project(parent: string, files: Record<string, string>) {
  return await createRepo({ ".gitignore": ".sourcegraph/\n", ...files }, {
    parent,
    name: "project",
  });
}

// One stop ends all three: a request finishing in the grace period, one cut at its end and a
// fetch hanging on its upstream.
Deno.test("stop: a request in flight finishes within the grace period, one that outlasts it is cut, and a fetch that hangs on its upstream is ended with the repository's state kept", async () => {
  const parent = await tempDir("sg-stop-");
  // An upstream that accepts and never answers.
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  void (async () => {
    for await (const conn of silent) held.push(conn);
  })();
  try {
    const repo = await project(parent, { "a.txt": "alpha\n" });
    const service = await startService(repo.path, {
      SOURCEGRAPH_API_TOKEN: TOKEN,
      ...GRACE,
      ...NO_INDEX,
    });
    const port = portOf(service.url);
    const registered = await fetch(`${service.url}/sourcegraph/api/admin/v1/repos`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "idempotency-key": "k-stop-0001",
        "content-type": "application/json",
      },
      body: JSON.stringify({
        name: "org/slow",
        source: `http://127.0.0.1:${(silent.addr as Deno.NetAddr).port}/slow.git`,
        public_read: true,
        policy: { branches: ["main"] },
      }),
    });
    assertEquals(registered.status, 202);
    await registered.body?.cancel();
    let fetches: number[] = [];
    for (let i = 0; i < 200 && fetches.length === 0; i++) {
      fetches = (await descendants(service.pid)).filter((p) => /\bgit\b.*\bfetch\b/.test(p.args))
        .map((p) => p.pid);
      if (fetches.length === 0) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert(fetches.length > 0, "no fetch was seen running");
    const head = (length: number) =>
      `POST /sourcegraph/v1/repo/read?repo=local/project HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      `Authorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    const body = '{"Path":"a.txt"}';
    // One request whose body completes after the stop began: it is answered.
    const finishing = await openSocket(port, head(body.length) + body.slice(0, 5));
    // One whose body never completes: cut at the end of the grace period.
    const endless = await openSocket(port, head(1000) + '{"Path":');
    // Both in flight (the metrics count themselves too) before the stop begins.
    await waitFor(async () => {
      const text = await (await fetch(`${service.url}/metrics`)).text();
      return Number(/sourcegraph_requests_in_flight (\d+)/.exec(text)?.[1]) >= 3;
    });
    const stopping = stopCleanly(service, {
      dataDir: join(repo.path, ".sourcegraph"),
      children: fetches,
    });
    await waitFor(() => service.log.some((line) => line.includes("stopping (SIGTERM)")));
    await finishing.write(new TextEncoder().encode(body.slice(5)));
    const answered = await readUntilClosed(finishing, 15_000);
    assert(answered.text.startsWith("HTTP/1.1 200"), answered.text);
    assertIncludes(answered.text, "alpha");
    const cut = await readUntilClosed(endless, 15_000);
    assert(cut.closed, "the endless request was not cut");
    await stopping;
    assertIncludes(service.log.join("\n"), "the grace period ended; cutting 1 request(s)");
    assertIncludes(service.log.join("\n"), "sync of org/slow stopped: the service is stopping");
    for (const conn of [finishing, endless]) conn.close();
    // New connections are refused once the stop began (the port is closed).
    const refused = await Deno.connect({ hostname: "127.0.0.1", port }).then(
      (conn) => (conn.close(), false),
      () => true,
    );
    assert(refused, "the port still accepts after the stop");
    // A fetch cut by the stop is no failure of the repository's.
    const store = new DatabaseSync(join(repo.path, ".sourcegraph", "control.sqlite3"));
    try {
      const states = store.prepare("SELECT state FROM sync_state").all() as { state: string }[];
      assert(!states.some((row) => row.state === "failed"), JSON.stringify(states));
    } finally {
      store.close();
    }
  } finally {
    silent.close();
    for (const conn of held) conn.close();
    await removeDir(parent);
  }
});

Deno.test("stop: an index build in progress is ended and its builder process does not outlive the service", async () => {
  const parent = await tempDir("sg-stop-");
  try {
    // Enough text that building its index takes a while (in few files: writing and committing
    // thousands of small ones would cost more than the build).
    const files: Record<string, string> = {};
    for (let i = 0; i < 400; i++) {
      const lines = Array.from({ length: 10 }, (_, j) => i * 10 + j)
        .map((k) => `line ${k} of varied words ${k * 7919}\n`.repeat(80));
      files[`src/f${i}.txt`] = `file ${i}\n${lines.join("")}`;
    }
    const repo = await project(parent, files);
    const service = await startService(repo.path, GRACE, { lineTimeoutMs: 120_000 });
    let builders: number[] = [];
    for (let i = 0; i < 200 && builders.length === 0; i++) {
      builders = (await descendants(service.pid)).filter((p) => p.args.includes("build_main.ts"))
        .map((p) => p.pid);
      if (builders.length === 0) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert(builders.length > 0, `no index build was seen running:\n${service.log.join("\n")}`);
    await stopCleanly(service, { dataDir: join(repo.path, ".sourcegraph"), children: builders });
    assert(
      !service.log.some((line) => line.includes("search index of local/project at")),
      "the build finished before the stop: the test proves nothing",
    );
  } finally {
    await removeDir(parent);
  }
});

Deno.test("stop: a second SIGINT later than the relay window stops at once; the copies of the first within it did not", async () => {
  const parent = await tempDir("sg-stop-");
  try {
    const repo = await project(parent, { "a.txt": "alpha\n" });
    const service = await startService(repo.path, {
      SOURCEGRAPH_API_TOKEN: TOKEN,
      SOURCEGRAPH_STOP_GRACE: "30s",
      ...NO_INDEX,
    });
    // A request whose body never completes keeps the graceful stop waiting.
    const endless = await openSocket(
      portOf(service.url),
      `POST /sourcegraph/v1/repo/read?repo=local/project HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"Path":`,
    );
    // Once it is in flight (the metrics count themselves too), the graceful stop waits for it.
    const metrics = `http://127.0.0.1:${portOf(service.url)}/metrics`;
    await waitFor(async () => {
      const text = await (await fetch(metrics)).text();
      return Number(/sourcegraph_requests_in_flight (\d+)/.exec(text)?.[1]) >= 2;
    });
    // The first SIGINT and two copies, as a Ctrl-C relayed by launchers arrives.
    for (let i = 0; i < 3; i++) Deno.kill(service.pid, "SIGINT");
    await waitFor(() => service.log.some((line) => line.includes("stopping (SIGINT)")));
    // Later than the relay window (1 s) by the test's own clock: a second request to stop.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert(!service.log.some((line) => line.includes("stopping now")), service.log.join("\n"));
    Deno.kill(service.pid, "SIGINT");
    const status = await service.stop();
    endless.close();
    assertEquals(status.code, 1, service.log.join("\n"));
    assertEquals(
      service.log.filter((line) => line.includes("SIGINT again: stopping now")).length,
      1,
    );
    assertEquals(service.log.filter((line) => line.includes("stopping (SIGINT)")).length, 1);
  } finally {
    await removeDir(parent);
  }
});
