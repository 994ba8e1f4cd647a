import { assert, assertEquals, waitFor } from "../../support/assert.ts";
import {
  inProcessFetch,
  type InProcessWorld,
  withInProcessService,
  WORLD_TOKEN,
} from "../../support/in_process_service.ts";

const PROJECT = "local/project";

Deno.test("HTTP API: read, resolve, list, search and errors with request ids", () =>
  withInProcessService(async ({ handle, heads }) => {
    const head = heads.get(PROJECT)!;
    const fetchPath = inProcessFetch(handle);
    const post = (path: string, body: unknown) =>
      fetchPath(`/sourcegraph${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    const read = await post("/v1/repo/read?repo=local/project", {
      Path: "notes.txt",
      StartLine: 2,
      EndLine: 2,
    });
    assertEquals(read.status, 200);
    assert(read.headers.get("x-request-id"));
    const file = await read.json();
    assertEquals(
      [
        file.Path,
        file.Commit,
        file.Kind,
        file.Content,
        file.ReturnedStartLine,
        file.ReturnedEndLine,
        file.HasMore,
        file.NextStartLine,
      ],
      ["notes.txt", head, "file", "beta needle\n", 2, 2, true, 3],
    );
    assertEquals(
      (await (await post("/v1/repo/resolve?repo=local/project", {})).json()).Commit,
      head,
    );
    const list = await (await post("/v1/repo/list?repo=local/project", { First: 10 })).json();
    assertEquals(list.Entries.map((e: { Path: string }) => e.Path), [".gitignore", "notes.txt"]);
    assertEquals([list.Repo, list.Commit, list.Path, list.HasMore, list.NextCursor], [
      "local/project",
      head,
      "",
      false,
      null,
    ]);
    const page = await (await post("/v1/repo/list?repo=local/project", { First: 1 })).json();
    assertEquals([page.HasMore, page.NextCursor], [true, ".gitignore"]);
    const search = await (await post("/api/search?repo=local/project", { Pattern: "needle" }))
      .json();
    assertEquals(search.Meta.Commit, head);
    assert(["ready", "not_ready"].includes(search.Meta.Index), search.Meta.Index);
    assertEquals(search.Result.Files[0].FileName, "notes.txt");
    assertEquals(atob(search.Result.Files[0].LineMatches[0].Line), "beta needle");
    assertEquals(search.Result.Files[0].LineMatches[0].LineNumber, 2);

    const error = await post("/v1/repo/read?repo=local/project", { Path: "missing.txt" });
    assertEquals(error.status, 404);
    const body = await error.json();
    assertEquals([body.Meta.Code, body.Meta.Status, body.Meta.Protocol], [
      "FILE_NOT_FOUND",
      "error",
      "zoekt-single-repo-v1",
    ]);
    assertEquals(body.Meta.RequestID, error.headers.get("x-request-id"));
    for (
      const bad of [
        '{"Path":"notes.txt","Extra":1}',
        '{"Path":"notes.txt","Path":"x"}',
        '{"Path":null}',
        '{"path":"notes.txt"}',
      ]
    ) {
      const response = await post("/v1/repo/read?repo=local/project", bad);
      assertEquals(
        [response.status, (await response.json()).Meta.Code],
        [400, "INVALID_REQUEST"],
        bad,
      );
    }
    const twoRepos = await post("/v1/repo/read?repo=a&repo=b", { Path: "x" });
    assertEquals(twoRepos.status, 400);
    await twoRepos.body?.cancel();
    const repos = await (await fetchPath(`/sourcegraph/v1/repos`)).json();
    assertEquals(repos.Repositories.map((r: { Repo: string }) => r.Repo), ["local/project"]);
    assertEquals(repos.NextCursor, null);
    const availability =
      await (await fetchPath(`/sourcegraph/v1/repo/availability?repo=local/project`)).json();
    assertEquals(availability.Versions[0].Commit, head);
    assertEquals([availability.Repo, availability.IndexMode, availability.Heads.main], [
      "local/project",
      "full",
      head,
    ]);
    // One naming convention across the whole answer: no snake_case field anywhere.
    for (const answer of [list, repos, availability]) {
      assertEquals(JSON.stringify(answer).match(/"[a-z]+_[a-z_]+":/g), null);
    }
  }, {
    repositories: [{
      name: PROJECT,
      publicRead: true,
      files: { ".gitignore": ".sourcegraph/\n", "notes.txt": "alpha\nbeta needle\ngamma\n" },
    }],
  }));

Deno.test("anonymous callers are rate limited (429); the service token is not", () =>
  withInProcessService(async ({ handle }) => {
    const fetchPath = inProcessFetch(handle);
    const read = (auth?: string) =>
      fetchPath(`/sourcegraph/v1/repo/read?repo=local/project`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(auth ? { authorization: `Bearer ${auth}` } : {}),
        },
        body: JSON.stringify({ Path: "a.txt" }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await read();
      statuses.push(response.status);
      await response.body?.cancel();
    }
    assertEquals(statuses, [200, 200, 200, 429, 429]);
    const limited = await read();
    assertEquals((await limited.json()).code, "RATE_LIMITED");
    const authenticated = await read(WORLD_TOKEN);
    assertEquals(authenticated.status, 200);
    await authenticated.body?.cancel();
  }, {
    repositories: [{ name: PROJECT, publicRead: true, files: { "a.txt": "a\n" } }],
    settings: { anonymousPerMinute: 3 },
  }));

// POSTs a JSON body below /sourcegraph of the service `handle` answers for.
function jsonPost(handle: Parameters<typeof inProcessFetch>[0]) {
  const fetchPath = inProcessFetch(handle);
  return (path: string, body: unknown): Promise<Response> =>
    fetchPath(`/sourcegraph${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
}

Deno.test("HTTP API: symbols with Go-style names, pages by NextCursor, ranked search says so", () =>
  withInProcessService(async ({ handle, heads }) => {
    const head = heads.get("org/defs")!;
    const post = jsonPost(handle);
    const symbols = (body: unknown) => post("/v1/repo/symbols?repo=org/defs", body);
    await waitFor(async () => (await symbols({ Query: "Frame" })).status === 200);
    const found = await (await symbols({ Query: "Frame" })).json();
    assertEquals(found, {
      Repo: "org/defs",
      Commit: head,
      Symbols: [{
        Name: "Frame",
        Kind: "class",
        Container: null,
        Language: "go",
        Path: "frame.go",
        StartLine: 3,
        EndLine: 5,
        Signature: "type Frame struct {",
      }],
      Total: 1,
      Truncated: false,
      SymbolsPartial: null,
      HasMore: false,
      NextCursor: null,
      NoResults: null,
    });
    // Nothing found: what the lookup may have meant, and `search` for text.
    const missed = await (await symbols({ Query: "frame" })).json();
    assertEquals([missed.Symbols, missed.Total], [[], 0]);
    assertEquals(missed.NoResults.IgnoreCaseNames, ["Frame"]);
    assert(missed.NoResults.Hint.includes("`search`"), missed.NoResults.Hint);
    const first = await (await symbols({ Query: ".", Match: "regex", First: 1 })).json();
    assertEquals([first.Symbols.length, first.HasMore], [1, true]);
    const second = await (await symbols({
      Query: ".",
      Match: "regex",
      First: 10,
      After: first.NextCursor,
    })).json();
    assertEquals(first.Total, 1 + second.Symbols.length);
    const bad = await symbols({ Query: "x", Kinds: ["struct"] });
    assertEquals([bad.status, (await bad.json()).Meta.Code], [400, "INVALID_REQUEST"]);
    const cursor = await symbols({ Query: "x", After: "zzz" });
    assertEquals([cursor.status, (await cursor.json()).Meta.Code], [400, "INVALID_CURSOR"]);
    const search = await (await post("/api/search?repo=org/defs", { Pattern: "Frame" })).json();
    assertEquals(search.Meta.Ranked, true);
    assertEquals(search.Result.Files[0].FileName, "frame.go");
    assertEquals(search.Result.Files[0].Defines, ["Frame"]);
  }, {
    repositories: [{
      name: "org/defs",
      publicRead: true,
      files: {
        "frame.go": "package draw\n\ntype Frame struct {\n\tWidth int\n}\n",
        "a_use.go": "package draw\n\nvar f Frame\n",
      },
    }],
    searchIndex: true,
  }));

// The cross-repository cases run as steps of one world: each repository holds a Python file that
// defines `shared` (for the symbols) and a text file that says it (for the search).
const ACROSS: [string, (world: InProcessWorld) => Promise<void>][] = [];
function acrossCase(name: string, fn: (world: InProcessWorld) => Promise<void>): void {
  ACROSS.push([name, fn]);
}

Deno.test("HTTP API across repositories: one world of three", (t) =>
  withInProcessService(async (world) => {
    for (const [name, fn] of ACROSS) await t.step(name, () => fn(world));
  }, {
    repositories: [
      {
        name: "org/one",
        publicRead: true,
        files: { "a.py": "def shared():\n    pass\n", "a.txt": "shared word\n" },
      },
      {
        name: "org/two",
        publicRead: true,
        files: { "b.py": "def shared():\n    pass\n", "b.txt": "shared too\nshared again\n" },
      },
      {
        name: "org/closed",
        publicRead: false,
        files: { "c.py": "def shared():\n    pass\n", "c.txt": "shared secret\n" },
      },
    ],
    searchIndex: true,
  }));

acrossCase(
  "HTTP API: POST /v1/symbols across repositories, each definition with its repository and commit",
  async ({ handle }) => {
    const post = jsonPost(handle);
    await waitFor(async () =>
      (await post("/v1/symbols", { Query: "shared" }).then((r) => r.json())).Skipped?.length === 0
    );
    const all = await post("/v1/symbols", { Query: "shared" });
    assertEquals(all.status, 200);
    const found = await all.json();
    assertEquals(found.Repos.map((r: { Name: string }) => r.Name), ["org/one", "org/two"]);
    assertEquals(
      found.Symbols.map((s: { Repo: string; Path: string; StartLine: number }) =>
        `${s.Repo} ${s.Path}:${s.StartLine}`
      ),
      ["org/one a.py:1", "org/two b.py:1"],
    );
    assertEquals(found.Symbols[1].Commit, found.Repos[1].Commit);
    assertEquals([found.Total, found.HasMore, found.NextCursor], [2, false, null]);
    assert(!JSON.stringify(found).includes("closed"), "a private repository never shows");
    // One repository's definitions are what its own lookup gives.
    const single = await (await post("/v1/repo/symbols?repo=org/two", { Query: "shared" })).json();
    assertEquals(single.Symbols[0].Path, found.Symbols[1].Path);
    assertEquals(found.Symbols.map((s: { Signature: string }) => s.Signature), [
      "def shared():",
      "def shared():",
    ]);
    const missed = await (await post("/v1/symbols", { Query: "sharde" })).json();
    assertEquals([missed.Total, missed.NoResults.NearestNames], [0, ["shared"]]);
    const page = await (await post("/v1/symbols", { Query: "shared", First: 1 })).json();
    const rest = await (await post("/v1/symbols", { Query: "shared", After: page.NextCursor }))
      .json();
    assertEquals(rest.Symbols.map((s: { Repo: string }) => s.Repo), ["org/two"]);
    const cursor = await post("/v1/symbols", { Query: "x", After: "bm90" });
    assertEquals([cursor.status, (await cursor.json()).Meta.Code], [400, "INVALID_CURSOR"]);
    const unknown = await post("/v1/symbols", { Query: "x", Repo: "org/one" });
    assertEquals([unknown.status, (await unknown.json()).Meta.Code], [400, "INVALID_REQUEST"]);
  },
);

acrossCase(
  "HTTP API: POST /v1/search across repositories, each answer as the single search's",
  async ({ handle }) => {
    const post = jsonPost(handle);
    // Both indexes ready, so that an index turning ready cannot tell two answers apart.
    for (const repo of ["org/one", "org/two"]) {
      await waitFor(async () =>
        (await (await post(`/api/search?repo=${repo}`, { Pattern: "shared" })).json()).Meta
          .Index === "ready"
      );
    }
    const all = await post("/v1/search", { Pattern: "shared" });
    assertEquals(all.status, 200);
    const found = await all.json();
    assertEquals(
      found.Results.map((r: { Meta: { Repository: string } }) => r.Meta.Repository),
      ["org/one", "org/two"],
    );
    assertEquals(found.Meta.Searched, 2);
    assertEquals(found.Meta.Skipped, []);
    assertEquals(found.Meta.NextCursor, null);
    assert(!JSON.stringify(found).includes("closed"), "a private repository never shows");
    // Each repository's answer is the single-repository answer but for its request id.
    const single = await (await post("/api/search?repo=org/two", { Pattern: "shared" })).json();
    const withoutId = (answer: { Meta: Record<string, unknown> }) => ({
      ...answer,
      Meta: { ...answer.Meta, RequestID: null },
    });
    assertEquals(withoutId(found.Results[1]), withoutId(single));
    const listed = await (await post("/v1/search", { Pattern: "shared", Repos: ["org/t*"] }))
      .json();
    assertEquals(listed.Results.length, 1);
    const bad = await post("/v1/search", { Pattern: "x", Repos: [] });
    assertEquals([bad.status, (await bad.json()).Meta.Code], [400, "INVALID_REQUEST"]);
    const cursor = await post("/v1/search", { Pattern: "x", After: "bm90" });
    assertEquals([cursor.status, (await cursor.json()).Meta.Code], [400, "INVALID_CURSOR"]);
  },
);
