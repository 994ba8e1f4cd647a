import { assertEquals, assertIncludes, waitFor } from "../../support/assert.ts";
import { createRepo } from "../../support/git_repo.ts";
import {
  adminFetch,
  connectInProcess,
  registerDocsMonorepo,
  withInProcessService,
} from "../../support/in_process_service.ts";
import { callText, texts } from "../../support/tool_calls.ts";

const TOKEN = "m".repeat(40);
const HOME = [{ name: "local/home", publicRead: true, files: { "a.txt": "home\n" } }];

Deno.test("path groups restrict reads, search and listings; diff pages changed paths", () =>
  withInProcessService(async ({ handle, heads, parent }) => {
    const mono = await createRepo({
      "docs/guide.md": "needle in docs\n",
      "docs/deep/more.md": "needle deeper\n",
      "src/app.ts": "needle in src\n",
      "link.md": "docs/guide.md",
    }, { parent, name: "mono" });
    const first = await mono.git("rev-parse", "HEAD");
    await mono.write({
      "docs/guide.md": "needle changed\n",
      "docs/new.md": "new\n",
      "src/app.ts": "changed src\n",
    });
    await mono.git("rm", "-q", "docs/deep/more.md");
    const second = await mono.commit("second");
    const admin = adminFetch(handle, TOKEN);
    const client = await connectInProcess(handle, { token: TOKEN });
    try {
      await registerDocsMonorepo(admin, { source: mono.path, key: "mono-0001" });

      assertIncludes(
        await callText(client, "read", { repo: "org/mono", path: "docs/guide.md" }),
        "1: needle changed",
      );
      assertEquals(
        await callText(client, "read", { repo: "org/mono", path: "src/app.ts" }),
        "ERROR PATH_NOT_REGISTERED",
      );
      assertEquals(
        await callText(client, "read", { repo: "org/mono", path: "link.md" }),
        "ERROR PATH_NOT_REGISTERED",
      );
      const many = texts(
        await client.callTool({
          name: "read_many",
          arguments: { repo: "org/mono", files: [{ path: "src/app.ts" }, { path: "docs/new.md" }] },
        }),
      );
      assertIncludes(many[0], `Error: "PATH_NOT_REGISTERED"`);
      assertIncludes(many[1], "1: new");
      const search = await callText(client, "search", { repo: "org/mono", pattern: "needle" });
      assertEquals([...search.matchAll(/^File: "(.*)"$/gm)].map((m) => m[1]), ["docs/guide.md"]);
      assertEquals(
        await callText(client, "search", { repo: "org/mono", pattern: "needle", paths: ["src"] }),
        "ERROR PATH_NOT_REGISTERED",
      );
      const root = JSON.parse(await callText(client, "list", { repo: "org/mono", first: 10 }));
      assertEquals(root.entries.map((e: { path: string }) => e.path), ["docs"]);
      assertEquals(
        await callText(client, "list", { repo: "org/mono", first: 10, path: "src" }),
        "ERROR PATH_NOT_REGISTERED",
      );

      // diff: only retained revisions, only covered paths, paged.
      const homeHead = heads.get("local/home")!;
      const all = JSON.parse(
        await callText(client, "diff", {
          repo: "local/home",
          base: homeHead,
          head: "main",
          first: 10,
        }),
      );
      assertEquals(all.changes, []);
      const prepare = await admin("POST", "/repo/prepare?repo=org/mono");
      await prepare.body?.cancel();
      assertEquals(
        await callText(client, "diff", { repo: "org/mono", base: first, head: second, first: 10 }),
        "ERROR REVISION_NOT_ELIGIBLE",
      );
      const page1 = JSON.parse(
        await callText(client, "diff", { repo: "org/mono", base: second, head: "main", first: 1 }),
      );
      assertEquals([page1.base, page1.head, page1.changes, page1.has_more], [
        second,
        second,
        [],
        false,
      ]);
    } finally {
      await client.close();
    }
  }, { repositories: HOME, settings: { serviceToken: TOKEN } }));

Deno.test("diff between two retained versions lists changes in path order with a cursor", () =>
  withInProcessService(async ({ handle, heads, sources }) => {
    const repo = sources.get("local/project")!;
    const first = heads.get("local/project")!;
    const client = await connectInProcess(handle, { token: TOKEN });
    try {
      await repo.write({ "a.txt": "2\n", "d.txt": "new\n" });
      await repo.git("rm", "-q", "c.txt");
      const second = await repo.commit("second");
      await callText(client, "prepare", { repo: "local/project", idempotency_key: "diff-prep-1" });
      const page1 = JSON.parse(
        await callText(client, "diff", {
          repo: "local/project",
          base: first,
          head: "main",
          first: 2,
        }),
      );
      assertEquals([page1.base, page1.head], [first, second]);
      assertEquals(page1.changes, [{ path: "a.txt", status: "modified" }, {
        path: "c.txt",
        status: "deleted",
      }]);
      assertEquals([page1.has_more, page1.next_cursor], [true, "c.txt"]);
      const page2 = JSON.parse(
        await callText(client, "diff", {
          repo: "local/project",
          base: first,
          head: second,
          first: 2,
          after: "c.txt",
        }),
      );
      assertEquals([page2.changes, page2.has_more], [[{ path: "d.txt", status: "added" }], false]);
      assertEquals(
        await callText(client, "diff", {
          repo: "local/project",
          base: "HEAD",
          head: second,
          first: 2,
        }),
        "ERROR INVALID_REVISION",
      );
    } finally {
      await client.close();
    }
  }, {
    repositories: [{
      name: "local/project",
      publicRead: true,
      files: { "a.txt": "1\n", "b.txt": "1\n", "c.txt": "1\n" },
    }],
    settings: { serviceToken: TOKEN },
  }));

Deno.test("path groups restrict symbols: definitions outside the groups are not found or counted", () =>
  withInProcessService(async ({ handle, parent }) => {
    const mono = await createRepo({
      "docs/tool.py": "def helper():\n    return 1\n",
      "src/app.ts": "export function helper(): number { return 2; }\n",
    }, { parent, name: "mono" });
    const admin = adminFetch(handle, TOKEN);
    const client = await connectInProcess(handle, { token: TOKEN });
    try {
      await registerDocsMonorepo(admin, { source: mono.path, key: "mono-0002" });
      const lookup = () => callText(client, "symbols", { repo: "org/mono", query: "helper" });
      await waitFor(async () => !(await lookup()).startsWith("ERROR"));
      const found = JSON.parse(await lookup());
      assertEquals(found.symbols.map((s: { path: string }) => s.path), ["docs/tool.py"]);
      assertEquals(found.total, 1);
      const everything = JSON.parse(
        await callText(client, "symbols", { repo: "org/mono", query: ".", match: "regex" }),
      );
      assertEquals(
        everything.symbols.every((s: { path: string }) => s.path.startsWith("docs/")),
        true,
      );
      assertEquals(
        await callText(client, "symbols", { repo: "org/mono", query: "helper", paths: ["src"] }),
        "ERROR PATH_NOT_REGISTERED",
      );
    } finally {
      await client.close();
    }
  }, { repositories: HOME, settings: { serviceToken: TOKEN }, searchIndex: true }));
