import { join } from "node:path";
import { MirrorObjects } from "../../../sourcegraph/git/mirror_objects.ts";
import { PathScope } from "../../../sourcegraph/access/path_scope.ts";
import {
  AttachmentBudget,
  parseAttachments,
  placeAttachments,
} from "../../../sourcegraph/plugins/attachments.ts";
import {
  DIAGNOSTICS_HEADING,
  renderEnrichmentTail,
  withAttachments,
} from "../../../sourcegraph/render/attachment_text.ts";
import { CATALOG_LIMITS, CatalogCache } from "../../../sourcegraph/plugins/catalog_cache.ts";
import {
  CompiledModules,
  moduleDigest,
} from "../../../sourcegraph/plugins/wasm/compiled_modules.ts";
import { HostReads } from "../../../sourcegraph/plugins/host_reads.ts";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";
import { canonicalJson } from "../../../sourcegraph/plugins/abi_input.ts";
import { encodeLeb128 } from "../../../sourcegraph/plugins/wasm/wasm_sections.ts";
import { DEFAULT_PLUGIN_SETTINGS } from "../../../sourcegraph/plugins/plugin_settings.ts";
import { SandboxProcess } from "../../../sourcegraph/plugins/sandbox/sandbox_process.ts";
import { buildFixtures } from "../../fixtures/plugins/build.ts";
import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import { addSubmodule, createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { fixture } from "../../support/plugin_service.ts";

Deno.test("fixtures: the committed .wasm files are exactly what build.ts makes from the WAT sources", async () => {
  const built = await buildFixtures();
  assert(built.size >= 10);
  for (const [file, bytes] of built) {
    assertEquals(fixture(file.replace(/\.wasm$/, "")), bytes, `${file} is stale: run build.ts`);
  }
});

Deno.test("attachments: the documented rendering example, ids kept, id-less blocks last", () => {
  const enrichment = placeAttachments([
    { itemId: "read-2", text: "x" },
    { itemId: null, text: "y" },
    { itemId: "read-0", text: "p" },
    { itemId: "read-0", text: "q" },
  ], []);
  const blocks = [
    ...["b0\n", "b1\n", "b2\n"].map((block, i) =>
      withAttachments(block, enrichment.byItem.get(`read-${i}`) ?? [])
    ),
    ...renderEnrichmentTail(enrichment),
  ];
  assertEquals(blocks, ["b0\n\np\n\nq", "b1\n", "b2\n\nx", "y"]);
  const many = Array.from({ length: 2000 }, (_, i) => ({
    code: "PLUGIN_PROTOCOL_ERROR",
    message: `attachment ${i} is not an object`,
  }));
  const tail = renderEnrichmentTail(placeAttachments([], many));
  assertEquals(tail.length, 1, "issues alone make one diagnostics block");
  const diagnostics = tail[0];
  assert(diagnostics.startsWith(DIAGNOSTICS_HEADING));
  assert(diagnostics.length < 17 * 1024, "the diagnostics block is capped");
  assertIncludes(diagnostics, "\nAdditional diagnostics omitted: ");
});

Deno.test("attachments: output validation drops bad entries only, refuses bad outputs whole", () => {
  const ids = new Set(["read-0", "read-2"]);
  const parse = (text: string | Uint8Array) =>
    parseAttachments(typeof text === "string" ? new TextEncoder().encode(text) : text, ids);
  for (const bad of ["not json", new Uint8Array([0x7b, 0xff, 0x7d]), "", '{"attachments":[]']) {
    const outcome = parse(bad);
    assert("failure" in outcome, String(bad));
    assertEquals(outcome.failure.code, "PLUGIN_INVALID_OUTPUT", String(bad));
  }
  // Valid JSON of the wrong shape is refused whole as a protocol error.
  for (
    const bad of [
      "42",
      "null",
      "[]",
      '"text"',
      '{"sections":[]}',
      '{"issues":[]}',
      '{"attachments":null}',
      '{"attachments":{}}',
    ]
  ) {
    const outcome = parse(bad);
    assert("failure" in outcome, bad);
    assertEquals(outcome.failure.code, "PLUGIN_PROTOCOL_ERROR", bad);
  }
  const outcome = parse(JSON.stringify({
    attachments: [
      { item_id: "read-0", text: "ok" },
      { item_id: "read-1", text: "foreign root" },
      { item_id: "", text: "empty id" },
      { item_id: null, text: "null id" },
      { item_id: 3, text: "number id" },
      { text: null },
      "text",
      { text: "" },
      { text: "batch", extra: true },
    ],
  }));
  assert(!("failure" in outcome));
  assertEquals(outcome.attachments, [{ itemId: "read-0", text: "ok" }, {
    itemId: null,
    text: "batch",
  }]);
  assertEquals(outcome.issues.length, 6);
  const budget = new AttachmentBudget(10);
  assertEquals(
    [
      budget.admit({ itemId: null, text: "12345" }),
      budget.admit({ itemId: null, text: "123456" }),
      budget.admit({ itemId: null, text: "12345" }),
      budget.admit({ itemId: null, text: "é" }),
    ],
    [true, false, true, false],
  );
  assertEquals(
    canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } }),
    '{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}',
  );
});

Deno.test("compiled modules: once per digest, shape checks, late compiles dropped, full cache refused", async () => {
  const evicted: string[] = [];
  const modules = new CompiledModules(2, (digest) => evicted.push(digest));
  const far = () => ({ deadline: performance.now() + 10_000 });
  const first = await modules.acquire(fixture("fixture"), far());
  const again = await modules.acquire(fixture("fixture"), far());
  assert("module" in first && "module" in again);
  assertEquals([first.hit, again.hit, modules.compiles], [false, true, 1]);
  // Both entries of the 2-slot cache are referenced: a new module cannot be kept.
  const minimal = await modules.acquire(fixture("minimal"), far());
  assert("module" in minimal);
  const refused = await modules.acquire(fixture("readflood"), far());
  assertEquals("code" in refused && refused.code, "PLUGIN_INVALID");
  // Released entries are evicted least recently used first.
  modules.release(first.module.digest);
  modules.release(first.module.digest);
  modules.release(minimal.module.digest);
  assert("module" in await modules.acquire(fixture("readflood"), far()));
  assertEquals(evicted, [first.module.digest]);
  // A caller whose deadline passes during the compile gives up; the late result is not cached.
  const slow = slowModule(16 * 1024 * 1024);
  const late = await modules.acquire(slow, { deadline: performance.now() + 1 });
  assertEquals("code" in late && late.code, "PLUGIN_TIMEOUT");
  await modules.acquire(fixture("minimal"), far()); // queued behind the late compile
  assert(!modules.has(await moduleDigest(slow)), "a late compile is discarded");
  const expired = await modules.acquire(fixture("bigoutput"), { deadline: performance.now() - 1 });
  assertEquals("code" in expired && expired.code, "PLUGIN_TIMEOUT");
});

/** A valid module whose one function is `nops` no-ops: slow to validate. */
function slowModule(nops: number): Uint8Array {
  const leb = encodeLeb128;
  const bodySize = nops + 2;
  const code = [1, ...leb(bodySize), 0];
  const head = [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 3, 2, 1, 0];
  const sectionSize = code.length + nops + 1;
  const bytes = new Uint8Array(head.length + 1 + leb(sectionSize).length + sectionSize);
  bytes.set([...head, 10, ...leb(sectionSize), ...code]);
  bytes.fill(1, bytes.length - nops - 1, bytes.length - 1);
  bytes[bytes.length - 1] = 0x0b;
  return bytes;
}

Deno.test("catalog cache: coalesced misses, failures not cached, LRU by count and bytes, idle sweep", async () => {
  const cache = new CatalogCache();
  try {
    let calls = 0;
    const discover = (issues = false, bytes = 0) => async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return {
        catalog: {
          commit: "c",
          plugins: [],
          ...(issues ? { issues: [{ code: "PLUGIN_DISCOVERY_FAILED", message: "x" }] } : {}),
        },
        artifacts: new Map(bytes ? [["p", { bytes: new Uint8Array(bytes), digest: "d" }]] : []),
      };
    };
    const [a, b] = await Promise.all([cache.get("k", discover()), cache.get("k", discover())]);
    assertEquals([calls, a.catalog.plugins.length, cache.has("k")], [1, 0, true]);
    a.catalog.plugins.push({} as never);
    assertEquals(b.catalog.plugins.length, 0, "callers get copies");
    await cache.get("broken", discover(true));
    await cache.get("broken", discover(true));
    assertEquals([calls, cache.has("broken")], [3, false]);
    for (let i = 0; i < CATALOG_LIMITS.snapshots; i++) await cache.get(`n${i}`, discover());
    assert(!cache.has("k"), "the 65th snapshot evicts the least recently used");
    await cache.get("huge", discover(false, 100 * 1024 * 1024));
    await cache.get("huge2", discover(false, 100 * 1024 * 1024));
    assertEquals([cache.has("huge"), cache.has("huge2")], [false, true]);
    cache.sweep(performance.now() + CATALOG_LIMITS.idleMs + 1);
    assert(!cache.has("huge2") && !cache.has("n63"), "idle snapshots are swept");
  } finally {
    cache.close();
  }
});

Deno.test("sandbox: a child with no permission flags at all, killed at the deadline", async () => {
  const sandbox = new SandboxProcess({ memoryMib: 16 });
  try {
    const ps = await new Deno.Command("ps", { args: ["-o", "args=", "-p", String(sandbox.pid)] })
      .output();
    const cmdline = new TextDecoder().decode(ps.stdout).trim().split(/\s+/);
    assert(!cmdline.some((arg) => arg.startsWith("--allow") || arg === "-A"), cmdline.join(" "));
    assert(cmdline.includes("--no-prompt"));
    assertIncludes(cmdline.join(" "), "--wasm-max-mem-pages=256");
    assertEquals(await sandbox.load(fixture("fixture"), performance.now() + 10_000), null);
    const started = performance.now();
    const outcome = await sandbox.run(new TextEncoder().encode('{"action":"loop"}'), {
      outputBytes: 1024,
      deadline: performance.now() + 300,
      onRead: () => Promise.resolve({ denied: "x" }),
    });
    assertEquals(outcome, { code: "PLUGIN_TIMEOUT" });
    // The loop never ends by itself: only the deadline can have stopped it.
    assert(performance.now() - started < 30_000);
    assert(!sandbox.alive);
  } finally {
    sandbox.kill();
  }
});

Deno.test("sandbox: MEMORY_MIB caps guest memory (a 4 MiB module loads under 8 MiB, not under 2 MiB)", async () => {
  const load = async (memoryMib: number) => {
    const sandbox = new SandboxProcess({ memoryMib });
    try {
      return await sandbox.load(fixture("bigoutput"), performance.now() + 10_000);
    } finally {
      sandbox.kill();
    }
  };
  assertEquals(await load(8), null);
  assertEquals(await load(2), {
    code: "PLUGIN_FAILED",
    message: "the module cannot be instantiated",
  });
});

Deno.test("host reads: relative paths in the plugin folder and scope, regular files, budgets, read_files format", async () => {
  const parent = await tempDir("sg-host-reads-");
  try {
    const repo = await createRepo({
      "plugin/a.txt": "alpha",
      "plugin/empty.txt": "",
      "plugin/big.txt": "b".repeat(64),
      "plugin/dir/n.txt": "nested",
      "outside.txt": "secret",
    }, { parent, name: "outer" });
    await Deno.symlink("a.txt", join(repo.path, "plugin/link.txt"));
    await addSubmodule(repo, { parent, path: "plugin/sub", files: { "x.txt": "x" } });
    const commit = await repo.commit("files");
    const tree = new MirrorObjects(repo.path);
    let scopeOk = true;
    const reads = new HostReads(tree, {
      commit,
      root: "plugin",
      scope: new PathScope({ pathGroups: [] }),
      settings: { ...DEFAULT_PLUGIN_SETTINGS, fileBytes: 32, readBytes: 25, readCalls: 16 },
      recheck: () => {
        if (!scopeOk) throw new Error("scope changed");
      },
    });
    const read = async (path: string) => {
      const answer = await reads.answer("read_file", new TextEncoder().encode(path));
      return "data" in answer ? new TextDecoder().decode(answer.data) : answer.denied;
    };
    assertEquals(await read("a.txt"), "alpha");
    assertEquals(await read("empty.txt"), "");
    assertEquals(await read("dir/n.txt"), "nested");
    assert((await read("../outside.txt")).startsWith("INVALID_PATH:"));
    assert((await read("/etc/passwd")).startsWith("INVALID_PATH:"));
    assert((await read("./a.txt")).startsWith("INVALID_PATH:"));
    assert((await read("link.txt")).startsWith("NOT_A_FILE:"));
    assert((await read("sub")).startsWith("NOT_A_FILE:"));
    assert((await read("dir")).startsWith("NOT_A_FILE:"));
    assert((await read("nope.txt")).startsWith("FILE_NOT_FOUND:"));
    assertEquals(await read("big.txt"), "PLUGIN_FILE_TOO_LARGE: host read bytes exceeded");
    // 5 + 0 + 6 bytes so far; two more alphas fit in 25, a third does not.
    const batch = await reads.answer(
      "read_files",
      new TextEncoder().encode(JSON.stringify(["a.txt", "../x"])),
    );
    assert("data" in batch);
    const view = new DataView(batch.data.buffer, batch.data.byteOffset);
    assertEquals([view.getUint32(0, true), view.getUint32(4, true), view.getUint32(8, true)], [
      2,
      0,
      5,
    ]);
    assertEquals(new TextDecoder().decode(batch.data.subarray(12, 17)), "alpha");
    assertEquals(view.getUint32(17, true), 1);
    const errorLength = view.getUint32(21, true);
    assert(
      new TextDecoder().decode(batch.data.subarray(25, 25 + errorLength)).startsWith(
        "INVALID_PATH:",
      ),
    );
    assertEquals(await read("a.txt"), "alpha");
    assertEquals(await read("a.txt"), "READ_LIMIT: host read bytes exceeded");
    for (const bad of ["not json", '{"a":1}', "[1]"]) {
      const refused = await reads.answer("read_files", new TextEncoder().encode(bad));
      assert("denied" in refused && refused.denied.startsWith("INVALID_REQUEST:"), bad);
    }
    scopeOk = false;
    assertIncludes(await read("a.txt"), "READ_FAILED");
    scopeOk = true;
    assertEquals(reads.calls, 16);
    assertEquals(await read("a.txt"), "READ_LIMIT: host read count exceeded");
    // The service's own re-check and the path length, as the guest's last_error sees them.
    const fresh = new HostReads(tree, {
      commit,
      root: "plugin",
      scope: new PathScope({ pathGroups: [] }),
      settings: DEFAULT_PLUGIN_SETTINGS,
      recheck: () => {
        throw new SourcegraphError("PLUGIN_SCOPE_CHANGED", "the repository scope changed");
      },
    });
    const denied = async (path: string) => {
      const answer = await fresh.answer("read_file", new TextEncoder().encode(path));
      return "denied" in answer ? answer.denied : "read";
    };
    assertEquals(await denied("x".repeat(4097)), "path too long");
    assert((await denied("a.txt")).startsWith("PLUGIN_SCOPE_CHANGED:"));
    await tree.close();
  } finally {
    await removeDir(parent);
  }
});
