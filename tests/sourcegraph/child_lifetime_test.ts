import { assert, assertEquals } from "../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../support/git_repo.ts";
import {
  LOOPING_PLUGIN,
  readWithLoopingPlugin,
  withPluginService,
} from "../support/plugin_service.ts";
import { alive } from "../support/raw_http.ts";
import { type RunningService, startService } from "../support/sourcegraph_service.ts";

const TOKEN = "c".repeat(40);

/** Every descendant of `root` now: pid and command line. */
async function descendants(root: number): Promise<{ pid: number; args: string }[]> {
  const ps = await new Deno.Command("ps", { args: ["-e", "-o", "pid=,ppid=,args="] }).output();
  const rows = new TextDecoder().decode(ps.stdout).split("\n").map((line) =>
    /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line)
  ).filter((m) => m !== null).map((m) => ({
    pid: Number(m![1]),
    ppid: Number(m![2]),
    args: m![3],
  }));
  const found: { pid: number; args: string }[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const row of rows) {
      if (row.ppid !== parent) continue;
      found.push({ pid: row.pid, args: row.args });
      queue.push(row.pid);
    }
  }
  return found;
}

async function waitFor<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await probe();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** SIGKILLs the service and returns the children still alive 2 s later. */
async function survivorsOfKill(service: RunningService, children: number[]): Promise<number[]> {
  Deno.kill(service.pid, "SIGKILL");
  await service.stop();
  const deadline = performance.now() + 2_000;
  let left = children;
  while (left.length > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = (await Promise.all(left.map(async (pid) => (await alive(pid)) ? [pid] : []))).flat();
  }
  return left;
}

Deno.test("children: a SIGKILLed service leaves no git fetch or object reader running", async () => {
  const parent = await tempDir("sg-children-");
  // A Git daemon that accepts and never answers: the fetch hangs until its 10-minute deadline.
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of silent) held.push(conn);
  })().catch(() => {});
  try {
    const home = await createRepo({ "a.txt": "a\n", ".gitignore": ".sourcegraph/\n" }, {
      parent,
      name: "home",
    });
    // No search index: the children are the fetch and the object reader, no index builder.
    const service = await startService(home.path, {
      SOURCEGRAPH_API_TOKEN: TOKEN,
      SOURCEGRAPH_SEARCH_INDEX: "false",
    });
    // An object reader is started by the first read.
    const read = await fetch(`${service.url}/sourcegraph/v1/repo/read?repo=local/home`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ Path: "a.txt" }),
    });
    assertEquals(read.status, 200);
    await read.body?.cancel();
    const port = (silent.addr as Deno.NetAddr).port;
    const registered = await fetch(`${service.url}/sourcegraph/api/admin/v1/repos`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "idempotency-key": "hang-0001" },
      body: JSON.stringify({
        name: "org/hanging",
        source: `git://127.0.0.1:${port}/hanging.git`,
        public_read: false,
        policy: { branches: ["main"] },
      }),
    });
    assertEquals(registered.status, 202);
    await registered.body?.cancel();
    const children = await waitFor("a running fetch", async () => {
      const all = await descendants(service.pid);
      return all.some((child) => child.args.includes("fetch")) &&
          all.some((child) => child.args.includes("cat-file"))
        ? all
        : null;
    });
    const left = await survivorsOfKill(service, children.map((child) => child.pid));
    assertEquals(left, [], JSON.stringify(children));
  } finally {
    silent.close();
    for (const conn of held) conn.close();
    await accepting;
    await removeDir(parent);
  }
});

Deno.test("children: a SIGKILLed service leaves no plugin sandbox running, even one stuck in a loop", () =>
  withPluginService(LOOPING_PLUGIN, async ({ client, service: process }) => {
    const service = process!;
    const call = readWithLoopingPlugin(client);
    // Wait until a sandbox is on a CPU (state R): the looping run, not the idle spare.
    const children = await waitFor("a looping sandbox", async () => {
      const all = await descendants(service.pid);
      const sandboxes = all.filter((child) => child.args.includes("sandbox_main.ts"));
      if (sandboxes.length === 0) return null;
      const ps = await new Deno.Command("ps", {
        args: ["-o", "stat=", ...sandboxes.flatMap((c) => ["-p", String(c.pid)])],
      }).output();
      return new TextDecoder().decode(ps.stdout).split("\n").some((s) => s.startsWith("R"))
        ? all
        : null;
    });
    assert(children.length > 1, JSON.stringify(children));
    const left = await survivorsOfKill(service, children.map((child) => child.pid));
    assertEquals(left, [], JSON.stringify(children));
    await call;
  }));
