import { join } from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { addSubmodule, createRepo } from "../support/git_repo.ts";
import { withProject } from "../support/knowledge_project.ts";

interface Hit {
  path: string;
}

const MARKER = "zebracornmarker";
// Which sources are eligible is the provider's logic: those cases serve its
// code in this process. Symlinked sources and inherited GIT_* variables keep
// the real process, whose read permission and environment are part of them.
const IN_PROCESS = { inProcess: true };

async function hitPaths(
  runner: { ok(name: string, args?: unknown): Promise<Record<string, unknown>> },
  query = MARKER,
): Promise<string[]> {
  const result = await runner.ok("search", { query, limit: 20 });
  return (result.hits as Hit[]).map((hit) => hit.path).sort();
}

Deno.test("path rules: unsupported, hidden, sensitive, symlink, submodule and invalid entries are excluded", () =>
  withProject({
    "ok.md": `${MARKER}\n`,
    "image.png": `${MARKER}\n`,
    "archive.bin": `${MARKER}\n`,
    ".env": `${MARKER}\n`,
    ".github/workflow.yml": `${MARKER}\n`,
    "config/.hidden.md": `${MARKER}\n`,
    "secrets/notes.md": `${MARKER}\n`,
    "deploy/server.pem": `${MARKER}\n`,
    "deploy/id_rsa.txt": `${MARKER}\n`,
    "agent.toml.md": `${MARKER}\n`,
    "ctl\u0001name.md": `${MARKER}\n`,
    "Makefile": `${MARKER}\n`,
  }, async (project) => {
    await Deno.symlink("ok.md", join(project.repo.path, "link.md"));
    await addSubmodule(project.repo, {
      parent: project.parent,
      path: "vendored",
      files: { "inner.md": `${MARKER}\n` },
    });
    await project.repo.commit("links");
    const runner = await project.admit(IN_PROCESS);
    try {
      const index = await runner.ok("index");
      assertEquals(await hitPaths(runner), ["Makefile", "ok.md"]);
      assertEquals(index.eligible_files, 2);
      // png, bin, .env, .github/…, config/.hidden.md, secrets/…, .pem, id_rsa…,
      // agent.toml…, the control-character name, the symlink, the submodule,
      // and .gitmodules (hidden).
      assertEquals(index.excluded_entries, 13);
    } finally {
      await runner.kill();
    }
  }));

Deno.test("conflicted index entries are excluded", () =>
  withProject({ "c.md": "base\n", "ok.md": `${MARKER}\n` }, async (project) => {
    const repo = project.repo;
    await repo.git("checkout", "-q", "-b", "side");
    await repo.write({ "c.md": `${MARKER} side\n` });
    await repo.commit("side");
    await repo.git("checkout", "-q", "main");
    await repo.write({ "c.md": `${MARKER} main\n` });
    await repo.commit("main");
    await repo.git("merge", "-q", "side").catch(() => {});
    assert((await repo.git("ls-files", "-u")).length > 0, "the fixture has a conflict");
    const runner = await project.admit(IN_PROCESS);
    try {
      const index = await runner.ok("index");
      assertEquals(await hitPaths(runner), ["ok.md"]);
      assertEquals(index.excluded_entries, 1);
    } finally {
      await runner.kill();
    }
  }));

Deno.test("content rules: binary, invalid UTF-8, secrets, hardlinks and oversized files are skipped", () =>
  withProject({
    "ok.md": `${MARKER}\n`,
    "nul.txt": new TextEncoder().encode(`${MARKER}\u0000binary\n`),
    "latin1.txt": new Uint8Array([...new TextEncoder().encode(`${MARKER} `), 0xe9, 0x0a]),
    "aws.ts": `const id = "AKIAABCDEFGHIJKLMNOP"; // ${MARKER}\n`,
    "pem.md": `${MARKER}\n-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n`,
    "gh.yml": `token: ghp_${"a".repeat(36)} # ${MARKER}\n`,
    "pw.py": `password = "correct-horse-battery" # ${MARKER}\n`,
    "url.md": `https://user:hunter2pass@example.com ${MARKER}\n`,
    "benign.py": `password = input("password: ")  # ${MARKER}\n`,
    "big.md": `${MARKER}\n` + "x".repeat(256 * 1024),
    "edge.md": `${MARKER}\n` + "y".repeat(256 * 1024 - MARKER.length - 1),
    "linked.md": `${MARKER} hardlinked\n`,
  }, async (project) => {
    await Deno.link(join(project.repo.path, "linked.md"), join(project.parent, "outside-link"));
    const runner = await project.admit(IN_PROCESS);
    try {
      const index = await runner.ok("index");
      assertEquals(await hitPaths(runner), ["benign.py", "edge.md", "ok.md"]);
      assertEquals(index.skipped_files, 9);
      assertEquals(index.indexed_files, 3);
      // read refuses the same sources.
      assertEquals(
        await runner.errorCode("read", { path: "linked.md", source_hash: "0".repeat(64) }),
        "source_ineligible",
      );
    } finally {
      await runner.kill();
    }
  }));

Deno.test("a source replaced by a symlink (file or parent folder) is never read through", () =>
  withProject({ "dir/a.md": `${MARKER} inside\n`, "b.md": `${MARKER} b\n` }, async (project) => {
    const outside = join(project.parent, "outside");
    await Deno.mkdir(outside);
    await Deno.writeTextFile(join(outside, "a.md"), `${MARKER} OUTSIDE SECRET\n`);
    await Deno.writeTextFile(join(outside, "b.md"), `${MARKER} OUTSIDE SECRET\n`);
    const runner = await project.admit();
    try {
      await runner.ok("index");
      const hits = (await runner.ok("search", { query: MARKER })).hits as {
        path: string;
        source_hash: string;
      }[];
      assertEquals(hits.length, 2);
      await Deno.remove(join(project.repo.path, "dir"), { recursive: true });
      await Deno.symlink(outside, join(project.repo.path, "dir"));
      await Deno.remove(join(project.repo.path, "b.md"));
      await Deno.symlink(join(outside, "b.md"), join(project.repo.path, "b.md"));
      const search = await runner.ok("search", { query: MARKER });
      assertEquals(search.hits, []);
      assertEquals(search.stale_candidates_omitted, 2);
      for (const hit of hits) {
        const code = await runner.errorCode("read", {
          path: hit.path,
          source_hash: hit.source_hash,
        });
        assertEquals(code, "source_unavailable");
      }
      const refresh = await runner.ok("index", { mode: "refresh" });
      assertEquals(refresh.indexed_files, 0);
      assertEquals(refresh.deleted_files, 2);
      const all = JSON.stringify(await runner.ok("search", { query: "OUTSIDE SECRET" }));
      assert(!all.includes("OUTSIDE SECRET"), "outside bytes never returned");
    } finally {
      await runner.kill();
    }
  }));

Deno.test("inherited GIT_* variables cannot redirect Git to another repository", () =>
  withProject({ "ours.md": `${MARKER} ours\n` }, async (project) => {
    const other = await createRepo({ "theirs.md": `${MARKER} theirs\n` }, {
      parent: project.parent,
      name: "other",
    });
    const runner = await project.admit({
      env: {
        GIT_DIR: join(other.path, ".git"),
        GIT_WORK_TREE: other.path,
        GIT_INDEX_FILE: join(other.path, ".git", "index"),
        GIT_CONFIG_PARAMETERS: "'core.worktree'='/'",
      },
    });
    try {
      await runner.ok("index");
      assertEquals(await hitPaths(runner), ["ours.md"]);
    } finally {
      await runner.kill();
    }
  }));
