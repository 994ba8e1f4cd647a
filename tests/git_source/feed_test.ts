import { join } from "node:path";
import { validateConfig } from "../../git_source/config.ts";
import { GitSourceError } from "../../git_source/errors.ts";
import { GitKnowledgeSource, pageBytes } from "../../git_source/feed.ts";
import { gitBatchResult, GitBatchSchema } from "../../git_source/protocol.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "../support/assert.ts";
import {
  addSubmodule,
  createRepo,
  removeDir,
  tempDir,
  type TestRepo,
} from "../support/git_repo.ts";
import { createPromisorClone } from "../support/promisor_clone.ts";

interface Fixture {
  parent: string;
  repo: TestRepo;
  source(
    paths: string[],
    options?: { data?: string; limits?: unknown; repository?: string },
  ): GitKnowledgeSource;
}

async function withRepo(
  files: Record<string, string | Uint8Array>,
  fn: (f: Fixture) => Promise<void>,
) {
  const parent = await tempDir("gs-test-");
  try {
    const repo = await createRepo(files, { parent, name: "repo" });
    await fn({
      parent,
      repo,
      source: (paths, options = {}) =>
        new GitKnowledgeSource(validateConfig({
          repository: options.repository ?? repo.path,
          paths,
          dataDirectory: options.data ?? join(parent, "data"),
          limits: options.limits,
        })),
    });
  } finally {
    await removeDir(parent);
  }
}

async function code(promise: Promise<unknown>): Promise<string> {
  return (await assertRejects(() => promise, GitSourceError)).code;
}

Deno.test("the feed is a replayable committed-file feed: pages validate against the protocol", () =>
  withRepo({ "notes.txt": "hello\n" }, async ({ source }) => {
    const page = await source(["notes.txt"]).changes();
    assert(GitBatchSchema.safeParse(page).success);
    assertEquals(page.updates.length, 1);
    assert(page.updates[0].text.endsWith("\nhello\n"), "body follows the header line");
  }));

Deno.test("unchanged acknowledged polls never hide a later commit", () =>
  withRepo({ "notes.txt": "one\n" }, async ({ repo, source }) => {
    const feed = source(["notes.txt"]);
    await feed.acknowledge((await feed.changes()).token);
    const empty = await feed.changes();
    assertEquals(empty.updates, []);
    await feed.acknowledge(empty.token);
    await repo.write({ "notes.txt": "two\n" });
    const head = await repo.commit("two");
    const next = await source(["notes.txt"]).changes(); // a new instance
    assertEquals(next.updates.map((u) => [u.revision, u.state]), [[head, "active"]]);
  }));

Deno.test("acknowledgement tokens cannot cross configured sources", () =>
  withRepo({ "a.txt": "a\n", "b.txt": "b\n" }, async ({ parent, source }) => {
    const a = source(["a.txt"], { data: join(parent, "data-a") });
    const b = source(["b.txt"], { data: join(parent, "data-b") });
    const pageA = await a.changes();
    const pageB = await b.changes();
    assertEquals(await code(b.acknowledge(pageA.token)), "unknown_ack");
    assertEquals(await b.changes(), pageB);
  }));

Deno.test("the page bounds the complete MCP result and the file page limit", () =>
  withRepo(
    { "a.txt": '"\\'.repeat(100) + "\n", "b.txt": '"\\'.repeat(100) + "\n" },
    async ({ source }) => {
      const feed = source(["a.txt", "b.txt"], {
        limits: { maxFiles: 1, maxFileBytes: 65_536, maxBatchBytes: 1024 },
      });
      const first = await feed.changes();
      assertEquals(first.updates.length, 1);
      const sent = gitBatchResult(first, { maxBytes: 1024 - 128 });
      assertEquals(feed.result(first), sent);
      assert(new TextEncoder().encode(JSON.stringify(sent)).length <= 1024);
      assert(pageBytes(first, 1024) <= 1024, "with the envelope reserve");
      await feed.acknowledge(first.token);
      const second = await feed.changes();
      assertEquals(second.updates.length, 1);
      assert(second.token !== first.token);
      assertEquals(second.updates[0].id, "b.txt");
    },
  ));

Deno.test("a missing promisor object never invokes a repository-configured transport", async () => {
  const parent = await tempDir("gs-test-");
  try {
    const { clone, marker } = await createPromisorClone(parent, { "notes.txt": "lazy\n" });
    const feed = new GitKnowledgeSource(validateConfig({
      repository: clone,
      paths: ["notes.txt"],
      dataDirectory: join(parent, "data"),
    }));
    assertEquals(await code(feed.changes()), "unavailable");
    assertEquals(await Deno.stat(marker).then(() => true, () => false), false, "transport ran");
  } finally {
    await removeDir(parent);
  }
});

Deno.test("a concurrent writer is rejected without replacing its state", () =>
  withRepo({ "notes.txt": "x\n" }, async ({ parent, source }) => {
    const data = join(parent, "data");
    await Deno.mkdir(data, { mode: 0o700 });
    await Deno.writeTextFile(join(data, "writer.lock"), '{"pid":1}');
    assertEquals(await code(source(["notes.txt"]).changes()), "writer_locked");
    assertEquals(await code(source(["notes.txt"]).acknowledge("x:0")), "writer_locked");
    assertEquals([...Deno.readDirSync(data)].map((e) => e.name), ["writer.lock"]);
    // Recovery: the recorded process is gone, so remove exactly that lock.
    await Deno.remove(join(data, "writer.lock"));
    assertEquals((await source(["notes.txt"]).changes()).updates.length, 1);
  }));

Deno.test("replays a stable committed page until acknowledged and preserves revisions", () =>
  withRepo({ "notes.txt": "one\n" }, async ({ repo, source }) => {
    const c1 = await repo.git("rev-parse", "HEAD");
    const feed = source(["notes.txt"]);
    const first = await feed.changes();
    assertEquals(first.updates.map((u) => [u.revision, u.previous, u.state]), [[
      c1,
      null,
      "active",
    ]]);
    await repo.write({ "notes.txt": "two\n" });
    const c2 = await repo.commit("two");
    assertEquals(await feed.changes(), first, "same page after the repository advanced");
    await feed.acknowledge(first.token);
    await feed.acknowledge(first.token); // idempotent
    const restarted = source(["notes.txt"]);
    const second = await restarted.changes();
    assertEquals(second.updates.map((u) => [u.revision, u.previous, u.state]), [[
      c2,
      c1,
      "active",
    ]]);
    assert(second.updates[0].text.endsWith("\ntwo\n"));
    await restarted.acknowledge(second.token);
    await repo.git("rm", "-q", "notes.txt");
    const c3 = await repo.commit("rm");
    const third = await restarted.changes();
    assertEquals(third.updates.map((u) => [u.revision, u.previous, u.state]), [[
      c3,
      c2,
      "withdrawn",
    ]]);
    // Re-added after a withdrawal: previous is the withdrawal's revision.
    await restarted.acknowledge(third.token);
    await repo.write({ "notes.txt": "back\n" });
    const c4 = await repo.commit("back");
    const fourth = await restarted.changes();
    assertEquals(fourth.updates.map((u) => [u.revision, u.previous, u.state]), [[
      c4,
      c3,
      "active",
    ]]);
  }));

Deno.test("ignores working-tree changes and rejects unsafe configured committed files", () =>
  withRepo({ "notes.txt": "one\n", "dir/inner.txt": "x\n" }, async ({ parent, repo, source }) => {
    const feed = source(["notes.txt"]);
    await feed.acknowledge((await feed.changes()).token);
    await repo.write({ "notes.txt": "dirty working tree\n" });
    const hookMarker = join(parent, "hook-ran");
    const hook = join(repo.path, ".git", "hooks", "post-checkout");
    await Deno.writeTextFile(hook, `#!/bin/sh\ntouch ${hookMarker}\n`);
    await Deno.chmod(hook, 0o755);
    assertEquals((await feed.changes()).updates, []);
    assertEquals(await Deno.stat(hookMarker).then(() => true, () => false), false);

    await Deno.symlink("notes.txt", join(repo.path, "link.txt"));
    await repo.commit("link");
    assertEquals(
      await code(source(["link.txt"], { data: join(parent, "d1") }).changes()),
      "unsupported_file",
    );
    assertEquals(
      await code(source(["dir"], { data: join(parent, "d2") }).changes()),
      "unsupported_file",
    );
    for (
      const bad of ["../escape", "/etc/passwd", "a//b", "./a", "a/./b", "-x", "sp ace", "é.txt"]
    ) {
      assertEquals(assertThrows(() => source([bad]), GitSourceError).code, "invalid_config", bad);
    }
    assertEquals(assertThrows(() => source(["a", "a"]), GitSourceError).code, "invalid_path");
    assertEquals(assertThrows(() => source([]), GitSourceError).code, "invalid_config");
    const many = Array.from({ length: 201 }, (_, i) => `f${i}`);
    assertEquals(assertThrows(() => source(many), GitSourceError).code, "invalid_config");
  }));

Deno.test("a submodule entry is unsupported", () =>
  withRepo({ "notes.txt": "x\n" }, async ({ parent, repo, source }) => {
    await addSubmodule(repo, { parent, path: "vendored", files: { "a.txt": "a\n" } });
    await repo.commit("submodule");
    assertEquals(await code(source(["vendored"]).changes()), "unsupported_file");
  }));

Deno.test("a restarted consumer gets an identical multi-update page before acknowledging", () =>
  withRepo({ "a.txt": "a\n", "b.txt": "b\n" }, async ({ repo, source }) => {
    const first = await source(["a.txt", "b.txt"]).changes();
    assertEquals(first.updates.length, 2);
    const replay = await source(["a.txt", "b.txt"]).changes();
    assertEquals(replay, first);
    const seen = new Set([...first.updates, ...replay.updates].map((u) => `${u.id}:${u.revision}`));
    assertEquals(seen.size, 2);
    await source(["a.txt", "b.txt"]).acknowledge(first.token);
    await repo.write({ "a.txt": "a2\n" });
    await repo.git("rm", "-q", "b.txt");
    await repo.commit("both");
    const next = await source(["a.txt", "b.txt"]).changes();
    assertEquals(next.updates.map((u) => [u.id, u.state]), [["a.txt", "active"], [
      "b.txt",
      "withdrawn",
    ]]);
  }));

Deno.test("reports force-push reconciliation and never treats corrupt private state as empty", () =>
  withRepo({ "notes.txt": "one\n" }, async ({ parent, repo, source }) => {
    const c1 = await repo.git("rev-parse", "HEAD");
    const feed = source(["notes.txt"]);
    await feed.acknowledge((await feed.changes()).token);
    await repo.write({ "notes.txt": "two\n" });
    await repo.commit("two");
    await feed.acknowledge((await feed.changes()).token);
    await repo.git("reset", "-q", "--hard", c1);
    const state = join(parent, "data", "state.json");
    const before = await Deno.readTextFile(state);
    assertEquals(await code(feed.changes()), "reconciliation_required");
    assertEquals(await code(feed.changes()), "reconciliation_required");
    assertEquals(await Deno.readTextFile(state), before, "the checkpoint is never reset");
    await Deno.writeTextFile(state, "{not json");
    assertEquals(await code(feed.changes()), "state_corrupt");
    assertEquals(await code(feed.acknowledge("x:0")), "state_corrupt");
    await Deno.writeTextFile(state, JSON.stringify({ ...JSON.parse(before), extra: 1 }));
    assertEquals(await code(feed.changes()), "state_corrupt");
    await Deno.writeTextFile(state, JSON.stringify({ ...JSON.parse(before), head: "XYZ" }));
    assertEquals(await code(feed.changes()), "state_corrupt");
  }));

Deno.test("the same data folder with another repository, path list or limits is configuration_changed", () =>
  withRepo({ "a.txt": "a\n", "b.txt": "b\n" }, async ({ parent, source }) => {
    await source(["a.txt"]).changes();
    assertEquals(await code(source(["a.txt", "b.txt"]).changes()), "configuration_changed");
    assertEquals(
      await code(source(["b.txt"]).changes()),
      "configuration_changed",
    );
    const limits = { maxFiles: 10, maxFileBytes: 65_536, maxBatchBytes: 524_288 };
    assertEquals(await code(source(["a.txt"], { limits }).changes()), "configuration_changed");
    const other = await createRepo({ "a.txt": "a\n" }, { parent, name: "other" });
    assertEquals(
      await code(source(["a.txt"], { repository: other.path }).changes()),
      "configuration_changed",
    );
    assertEquals(
      await code(source(["a.txt"], { repository: other.path }).acknowledge("x:0")),
      "configuration_changed",
    );
  }));

Deno.test("rejects binary, invalid UTF-8 and oversized committed content rather than truncating it", () =>
  withRepo({
    "nul.txt": new Uint8Array([104, 0, 105]),
    "latin1.txt": new Uint8Array([0xe9, 0x0a]),
    "big.txt": "x".repeat(11),
    "edge.txt": "y".repeat(8),
  }, async ({ parent, source }) => {
    const limits = { maxFiles: 200, maxFileBytes: 8, maxBatchBytes: 524_288 };
    const one = (path: string) =>
      source([path], { data: join(parent, `d-${path}`), limits }).changes();
    assertEquals(await code(one("nul.txt")), "unsupported_file");
    assertEquals(await code(one("latin1.txt")), "unsupported_file");
    assertEquals(await code(one("big.txt")), "file_too_large");
    assertEquals((await one("edge.txt")).updates.length, 1, "exactly at the limit");
    assertEquals(
      [...Deno.readDirSync(join(parent, "d-big.txt"))].map((e) => e.name),
      [],
      "nothing saved",
    );
  }));

Deno.test("a response-bounded page holds stable and advances only after its acknowledgement", () =>
  withRepo({ "a.txt": "a".repeat(400), "b.txt": "b".repeat(400) }, async ({ source }) => {
    const limits = { maxFiles: 200, maxFileBytes: 1024, maxBatchBytes: 1024 };
    const feed = source(["a.txt", "b.txt"], { limits });
    const first = await feed.changes();
    assertEquals(first.updates.length, 1);
    assertEquals(await feed.changes(), first);
    assertEquals(await code(feed.acknowledge(first.token.replace(/:0$/, ":1"))), "unknown_ack");
    await feed.acknowledge(first.token);
    const second = await feed.changes();
    assertEquals(second.updates.map((u) => u.id), ["b.txt"]);
    assert(second.token !== first.token);
    assertEquals(await feed.changes(), second);
  }));

Deno.test("one update too large for any page is batch_too_large and nothing is saved", () =>
  withRepo({ "a.txt": "a".repeat(1000) }, async ({ parent, source }) => {
    const limits = { maxFiles: 200, maxFileBytes: 65_536, maxBatchBytes: 1024 };
    assertEquals(await code(source(["a.txt"], { limits }).changes()), "batch_too_large");
    assertEquals([...Deno.readDirSync(join(parent, "data"))].map((e) => e.name), []);
  }));

Deno.test("acknowledgement history: recent tokens stay idempotent, unknown and stale ones fail", () =>
  withRepo({ "notes.txt": "0\n" }, async ({ repo, source }) => {
    const feed = source(["notes.txt"]);
    const tokens: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const page = await feed.changes();
      tokens.push(page.token);
      await feed.acknowledge(page.token);
      await repo.write({ "notes.txt": `${i}\n` });
      await repo.commit(`c${i}`);
    }
    for (const token of tokens) await feed.acknowledge(token);
    assertEquals(
      await code(feed.acknowledge("00000000-0000-0000-0000-000000000000:0")),
      "unknown_ack",
    );
    const pending = await feed.changes();
    assertEquals(await code(feed.acknowledge(pending.token.replace(/:0$/, ":5"))), "unknown_ack");
  }));

Deno.test("state is private: the data folder is 0700 and state.json 0600, with no lock left", () =>
  withRepo({ "notes.txt": "x\n" }, async ({ parent, source }) => {
    await source(["notes.txt"]).changes();
    const data = join(parent, "data");
    assertEquals(Deno.statSync(data).mode! & 0o777, 0o700);
    assertEquals(Deno.statSync(join(data, "state.json")).mode! & 0o777, 0o600);
    assertEquals([...Deno.readDirSync(data)].map((e) => e.name), ["state.json"]);
  }));

Deno.test("page byte accounting equals the serialized result exactly, at and past the edge", () =>
  withRepo(
    { "a.txt": 'é"\\\n'.repeat(50), "b.txt": "plain\n".repeat(40) },
    async ({ parent, source }) => {
      const probe = await source(["a.txt", "b.txt"], { data: join(parent, "probe") }).changes();
      const exact = pageBytes(probe);
      const fits = source(["a.txt", "b.txt"], {
        data: join(parent, "fits"),
        limits: { maxFiles: 200, maxFileBytes: 65_536, maxBatchBytes: exact },
      });
      assertEquals((await fits.changes()).updates.length, 2, "exactly at the limit both fit");
      const short = source(["a.txt", "b.txt"], {
        data: join(parent, "short"),
        limits: { maxFiles: 200, maxFileBytes: 65_536, maxBatchBytes: exact - 1 },
      });
      const page = await short.changes();
      assertEquals(page.updates.length, 1, "one byte less splits the page");
      assert(pageBytes(page) <= exact - 1);
    },
  ));

Deno.test("a bare repository and a work tree's subdirectory both read root-relative committed paths", () =>
  withRepo({ "docs/a.txt": "a\n" }, async ({ parent, repo, source }) => {
    const bare = join(parent, "bare.git");
    await repo.git("clone", "-q", "--bare", repo.path, bare);
    const fromBare = await source(["docs/a.txt"], { repository: bare, data: join(parent, "d1") })
      .changes();
    assertEquals(fromBare.updates.map((u) => u.state), ["active"]);
    const fromSub = await source(["docs/a.txt"], {
      repository: join(repo.path, "docs"),
      data: join(parent, "d2"),
    }).changes();
    assertEquals(fromSub.updates.map((u) => u.id), ["docs/a.txt"]);
  }));

/** The error a call rejects with. */
async function failure(promise: Promise<unknown>): Promise<GitSourceError> {
  return await assertRejects(() => promise, GitSourceError);
}

Deno.test("every per-file failure names the configured path it is about", () =>
  withRepo({
    "docs/nul.txt": new Uint8Array([104, 0, 105]),
    "docs/latin1.txt": new Uint8Array([0xe9, 0x0a]),
    "docs/big.txt": "x".repeat(11),
    "docs/sub/a.txt": "a\n",
    "fits.txt": "\u0001".repeat(8),
  }, async ({ parent, repo, source }) => {
    await Deno.symlink("big.txt", join(repo.path, "docs/link.txt"));
    await repo.commit("link");
    const limits = { maxFiles: 200, maxFileBytes: 8, maxBatchBytes: 524_288 };
    const one = (path: string, options: { limits?: unknown } = { limits }) =>
      source([path], { data: join(parent, `d-${path.replaceAll("/", "-")}`), ...options })
        .changes();
    for (
      const [path, code] of [
        ["docs/nul.txt", "unsupported_file"],
        ["docs/latin1.txt", "unsupported_file"],
        ["docs/link.txt", "unsupported_file"],
        ["docs/sub", "unsupported_file"],
        ["docs/big.txt", "file_too_large"],
      ]
    ) {
      const error = await failure(one(path));
      assertEquals(error.code, code, path);
      assert(error.message.includes(` ${path} `), `${path}: ${error.message}`);
    }
    // An update that cannot fit a page even alone: the smallest page limit, a long name.
    const long = `${"n".repeat(200)}.txt`;
    await repo.write({ [long]: "z".repeat(8) });
    await repo.commit("long");
    const error = await failure(
      one(long, { limits: { maxFiles: 200, maxFileBytes: 8, maxBatchBytes: 1024 } }),
    );
    assertEquals(error.code, "batch_too_large");
    assert(error.message.includes(long), error.message);
  }));

Deno.test("an update too large to repeat in a text block goes alone, its block saying where the text is", () =>
  withRepo(
    { "a.txt": "\u0001".repeat(60), "b.txt": "plain\n" },
    async ({ source }) => {
      // Escaped, a.txt's text takes 360 bytes and its header about 120: once fits a
      // 1,024-byte page, twice does not.
      const limits = { maxFiles: 200, maxFileBytes: 65_536, maxBatchBytes: 1024 };
      const feed = source(["a.txt", "b.txt"], { limits });
      const first = await feed.changes();
      assertEquals(first.updates.map((u) => u.id), ["a.txt"]);
      const result = feed.result(first);
      assertEquals(result.content.length, 2);
      assertEquals(result.content[1].text, "a.txt: text in structuredContent.updates[0]");
      assert(pageBytes(first, 1024) <= 1024);
      assertEquals(utf8Bytes(JSON.stringify(result)) + 128, pageBytes(first, 1024));
      await feed.acknowledge(first.token);
      const second = await feed.changes();
      assertEquals(second.updates.map((u) => u.id), ["b.txt"]);
      assertEquals(feed.result(second).content[1].text, second.updates[0].text);
      assert(pageBytes(second, 1024) <= 1024);
    },
  ));

function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}
