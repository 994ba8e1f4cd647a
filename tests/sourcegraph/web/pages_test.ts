import { parse as parseToml } from "smol-toml";
import { keyHash } from "../../../sourcegraph/access/credentials.ts";
import { join } from "node:path";
import { SqliteControlStore } from "../../../sourcegraph/store/sqlite_control_store.ts";
import { Sessions } from "../../../sourcegraph/web/sessions.ts";
import { removeDir, tempDir } from "../../support/git_repo.ts";
import { SharedCases } from "../../support/shared_cases.ts";
import { assert, assertEquals, assertIncludes, waitFor } from "../../support/assert.ts";
import {
  connectInProcess,
  type InProcessWorld,
  withInProcessService,
  WORLD_KEY,
  WORLD_TOKEN,
  type WorldRepository,
} from "../../support/in_process_service.ts";
import {
  cookiePair,
  hiddenField,
  type PageAnswer,
  pageRequest,
  setCookie,
} from "../../support/page_requests.ts";

const HOSTILE_NAME = `<img src=x onerror="alert(1)">.txt`;
// A tag with an attribute named onerror: every value before it is skipped whole.
const EVENT_ATTRIBUTE = /<[a-z][a-z0-9-]*(\s+[^\s"'=<>\/]+(=("[^"]*"|[^\s"'>]+))?)*\s+onerror\s*=/i;
const PLUGIN = new URL(
  "../../../sourcegraph/plugins/examples/related_content/related-content.sourcegraph.wasm",
  import.meta.url,
);

/** A public repository of hostile and awkward content, and a private one. */
export const PAGE_REPOSITORIES: WorldRepository[] = [
  {
    name: "org/open",
    publicRead: true,
    message: `<script>alert("subject")</script> first`,
    files: {
      "a.txt": `one\n<script>alert("content")</script>\nthree\nfour\nfive\n`,
      [HOSTILE_NAME]: "hostile name\n",
      "bin.dat": new Uint8Array([1, 2, 0, 3]),
      "latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
      "long.txt": Array.from({ length: 600 }, (_, i) => `line ${i + 1}`).join("\n") + "\n",
      "big.txt": "x".repeat(80) + "\n".repeat(1) + "y".repeat(9 * 1024 * 1024) + "\n",
      "docs/guide.md": "# Guide\n",
      "plugins/related-content.sourcegraph.wasm": Deno.readFileSync(PLUGIN),
    },
    prepare: async (repo) => {
      await Deno.symlink("a.txt", `${repo.path}/link.txt`);
      await Deno.symlink("../../../etc/passwd", `${repo.path}/escape.txt`);
    },
  },
  { name: "org/closed", publicRead: false, files: { "a.txt": "closed secret\n" } },
];

type PageWorld = InProcessWorld & { sha: string };

// The cases on one world of PAGE_REPOSITORIES, run in order (sign-in, which revokes the
// personal key, last).
const pageCases = new SharedCases<PageWorld>();

Deno.test("pages on one world of a public repository of hostile content and a private one", (t) =>
  withInProcessService(async (world) => {
    const sha = world.store.heads(world.store.repository("org/open")!.id).get("main")!;
    await pageCases.run(t, { ...world, sha });
  }, { repositories: PAGE_REPOSITORIES }));

// Memory after a full collection when the runner exposes gc (the test task does), so
// garbage not yet collected does not count as kept.
function retainedMemory(): Deno.MemoryUsage {
  (globalThis as { gc?: () => void }).gc?.();
  return Deno.memoryUsage();
}

// Ways out of a file path, in every encoding (each must stay inside the repository).
const TRAVERSALS = [
  "/../../../../etc/passwd",
  "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
  "/..%2f..%2f..%2fetc%2fpasswd",
  "/%252e%252e/%252e%252e/etc/passwd",
  "/..%5c..%5cetc%5cpasswd",
  "/a.txt%00",
  "/%c0%ae%c0%ae/etc/passwd",
  "//etc/passwd",
  "/docs/../../../etc/passwd",
  "/.git/config",
];

// Every link into the repository names the SHA (site links such as home and connect aside).
const isPinned = (html: string, sha: string) =>
  [...html.matchAll(/href="(\/sourcegraph\/org\/open[^"]*)"/g)].every((m) => m[1].includes(sha));

pageCases.add(
  "pages: anonymous visitors see public repositories only; a private one answers as a missing one",
  async ({ handle, sha }) => {
    const home = await pageRequest(handle, "/sourcegraph/");
    assertEquals(home.status, 200);
    assertIncludes(home.body, "org/open");
    assert(!home.body.includes("org/closed"), "the private repository is not listed");
    const closedSha = "0".repeat(40);
    for (
      const tail of [
        "",
        "/-/versions",
        "/-/search?q=secret",
        "/-/plugins",
        `/-/blob/${closedSha}/a.txt`,
        "/-/blob/main/a.txt",
        "/-/tree/main",
        `/blob/${sha}/a.txt`,
      ]
    ) {
      const closed = await pageRequest(handle, `/sourcegraph/org/closed${tail}`);
      const missing = await pageRequest(handle, `/sourcegraph/org/missing${tail}`);
      assertEquals(closed.status, 404, tail);
      assertEquals(closed.body, missing.body, `org/closed${tail} is told apart from a missing one`);
      assert(!closed.body.includes("secret"), tail);
    }
    const withKey = await pageRequest(handle, "/sourcegraph/", { token: WORLD_KEY });
    assertIncludes(withKey.body, "org/closed");
    assertIncludes(withKey.body, "private");
    const read = await pageRequest(handle, "/sourcegraph/org/closed/-/blob/main/a.txt", {
      token: WORLD_KEY,
    });
    assertEquals(read.status, 302);
  },
);

Deno.test("pages: with public reads off an anonymous visitor sees no repository", () =>
  withInProcessService(async ({ handle }) => {
    const home = await pageRequest(handle, "/sourcegraph/");
    assertEquals(home.status, 200);
    assert(!home.body.includes("org/open") && !home.body.includes("org/closed"), home.body);
    assertEquals((await pageRequest(handle, "/sourcegraph/org/open")).status, 404);
  }, { publicRead: false }));

pageCases.add(
  "pages: every page and asset carries the security headers; Host and Origin rules apply",
  async ({ handle, sha }) => {
    for (
      const path of [
        "/sourcegraph/",
        "/sourcegraph",
        "/sourcegraph/org/open",
        `/sourcegraph/org/open/-/blob/${sha}/a.txt`,
        "/sourcegraph/-/sign-in",
        "/sourcegraph/-/connect",
        "/sourcegraph/nothing/here/-/nope",
        "/sourcegraph/plugins/llms.txt",
        "/sourcegraph/-/static/app.css",
        "/sourcegraph/-/static/app.js",
      ]
    ) {
      const answer = await pageRequest(handle, path);
      const csp = answer.headers.get("content-security-policy") ?? "";
      assertIncludes(csp, "script-src 'self'");
      assertIncludes(csp, "frame-ancestors 'none'");
      assert(!csp.includes("unsafe-inline") && !csp.includes("unsafe-eval"), csp);
      assertEquals(answer.headers.get("x-content-type-options"), "nosniff", path);
      assertEquals(answer.headers.get("referrer-policy"), "same-origin", path);
      assertEquals(answer.headers.get("x-frame-options"), "DENY", path);
    }
    const foreignHost = await pageRequest(handle, "/sourcegraph/", {
      headers: { host: "evil.example" },
    });
    assertEquals(foreignHost.status, 421);
    const foreignOrigin = await pageRequest(handle, "/sourcegraph/-/sign-in", {
      form: { csrf: "x", secret: WORLD_KEY },
      origin: "https://evil.example",
    });
    assertEquals(foreignOrigin.status, 403);
    assertIncludes(foreignOrigin.body, "ORIGIN_NOT_ALLOWED");
  },
);

pageCases.add(
  "pages: hostile names, content, subjects and plugin metadata are escaped everywhere",
  async ({ handle, sha }) => {
    const pages: PageAnswer[] = [];
    for (
      const path of [
        "/sourcegraph/",
        "/sourcegraph/org/open",
        `/sourcegraph/org/open/-/blob/${sha}/a.txt`,
        `/sourcegraph/org/open/-/blob/${sha}/${encodeURIComponent(HOSTILE_NAME)}`,
        "/sourcegraph/org/open/-/versions",
        "/sourcegraph/org/open/-/search?q=alert",
        "/sourcegraph/org/open/-/search?q=script%3E&fixed=1",
        "/sourcegraph/org/open/-/plugins",
        `/sourcegraph/org/open/-/search?q=${encodeURIComponent('"><script>alert(2)</script>')}`,
        `/sourcegraph/org/open/-/symbols?q=${encodeURIComponent('"><script>alert(3)</script>')}`,
        `/sourcegraph/-/search?q=${encodeURIComponent('"><script>alert(4)</script>')}`,
        "/sourcegraph/-/search?q=alert",
      ]
    ) {
      const answer = await pageRequest(handle, path);
      assertEquals(answer.status, 200, path);
      pages.push(answer);
      // The only script element is the page's own script file.
      assertEquals(answer.body.match(/<script/g)?.length, 1, path);
      assert(!/<img/i.test(answer.body), path);
      // No tag has an attribute named onerror (values are quoted, their quotes escaped).
      assert(!EVENT_ATTRIBUTE.test(answer.body), `${path}: an event attribute in a tag`);
    }
    assertIncludes(pages[1].body, "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;.txt");
    // The file page's copy-path button holds the name as an escaped value.
    assertIncludes(
      pages[3].body,
      'data-copy-text="&lt;img src=x onerror=&quot;alert(1)&quot;&gt;.txt"',
    );
    assert(EVENT_ATTRIBUTE.test('<img src=x onerror="alert(1)">'), "the check finds a real one");
    assert(EVENT_ATTRIBUTE.test('<p class="a" onerror=x>'), "the check finds a real one");
    assertIncludes(pages[2].body, "&lt;script&gt;alert(&quot;content&quot;)&lt;/script&gt;");
    assertIncludes(pages[4].body, "&lt;script&gt;alert(&quot;subject&quot;)&lt;/script&gt; first");
    // A match of hostile text is marked, and stays text inside its mark.
    assertIncludes(
      pages[6].body,
      "<td>&lt;<mark>script&gt;</mark>alert(&quot;content&quot;)&lt;/<mark>script&gt;</mark></td>",
    );
  },
);

pageCases.add(
  "pages: file pages are pinned to the full SHA, branches redirect, notices replace unreadable text",
  async ({ handle, sha }) => {
    const blob = (rev: string, path: string, query = "") =>
      pageRequest(handle, `/sourcegraph/org/open/-/blob/${rev}/${path}${query}`);
    const branch = await blob("main", "a.txt", "?start=2");
    assertEquals(branch.status, 302);
    assertEquals(
      new URL(branch.headers.get("location")!, "http://x").pathname +
        new URL(branch.headers.get("location")!, "http://x").search,
      `/sourcegraph/org/open/-/blob/${sha}/a.txt?start=2`,
    );
    const pluginLink = await pageRequest(handle, `/sourcegraph/org/open/blob/${sha}/docs/guide.md`);
    assertEquals(pluginLink.status, 301);
    assert(
      pluginLink.headers.get("location")!.endsWith(
        `/sourcegraph/org/open/-/blob/${sha}/docs/guide.md`,
      ),
    );
    const page = await blob(sha, "a.txt");
    assertEquals(page.status, 200);
    for (const line of [1, 2, 5]) assertIncludes(page.body, `<tr id="L${line}">`);
    assertIncludes(page.body, `<a href="#L2">2</a>`);
    assert(isPinned(page.body, sha), "every tree and blob link names the SHA");
    const long = await blob(sha, "long.txt");
    assertIncludes(long.body, `<tr id="L600">`);
    assertIncludes((await blob(sha, "long.txt", "?start=599")).body, `<tr id="L599">`);
    const notices: [string, string][] = [
      ["bin.dat", "BINARY_FILE"],
      ["latin1.txt", "UNSUPPORTED_TEXT_ENCODING"],
      ["big.txt", "READ_SCAN_LIMIT"],
      ["escape.txt", "SYMLINK"],
    ];
    for (const [path, code] of notices) {
      const answer = await blob(sha, path);
      assertEquals(answer.status, 200, path);
      assertIncludes(answer.body, `<code>${code}</code>`);
      assert(!answer.body.includes('<tr id="L1">'), `${path} shows no text`);
    }
    const link = await blob(sha, "link.txt");
    assertIncludes(link.body, "A symbolic link to");
    assertIncludes(link.body, `href="/sourcegraph/org/open/-/blob/${sha}/a.txt"`);
    assertIncludes(link.body, `<tr id="L3">`);
    const folder = await blob(sha, "docs");
    assertEquals(folder.status, 302);
    assert(folder.headers.get("location")!.endsWith(`/-/tree/${sha}/docs`));
    const tree = await pageRequest(handle, `/sourcegraph/org/open/-/tree/${sha}/docs`);
    assertIncludes(tree.body, `href="/sourcegraph/org/open/-/blob/${sha}/docs/guide.md"`);
    assert(isPinned(tree.body, sha));
    const short = await blob(sha.slice(0, 12), "a.txt");
    assertEquals(short.status, 400);
    assertIncludes(short.body, "SHORT_SHA_UNSUPPORTED");
    assertEquals((await blob(sha, "nope.txt")).status, 404);
    assertIncludes(page.body, `href="/sourcegraph/org/open/-/versions?rev=${sha}"`);
    assertIncludes(
      (await pageRequest(handle, `/sourcegraph/org/open/-/versions?rev=${sha}`)).body,
      `<span class="badge">viewing</span>`,
    );
    const picked = await pageRequest(handle, `/sourcegraph/org/open?rev=${sha}&dir=docs`);
    assertEquals(picked.status, 303);
    assert(picked.headers.get("location")!.endsWith(`/-/tree/${sha}/docs`));
  },
);

pageCases.add(
  "pages: the raw route serves committed bytes, sandboxed, with the pages' visibility",
  async ({ handle, sha }) => {
    const raw = (rev: string, path: string, options = {}) =>
      pageRequest(handle, `/sourcegraph/org/open/-/raw/${rev}/${path}`, options);
    const branch = await raw("main", "a.txt");
    assertEquals(branch.status, 302);
    assert(branch.headers.get("location")!.endsWith(`/sourcegraph/org/open/-/raw/${sha}/a.txt`));
    const text = await raw(sha, "a.txt");
    assertEquals(text.status, 200);
    assertEquals(text.body, `one\n<script>alert("content")</script>\nthree\nfour\nfive\n`);
    assertEquals(text.headers.get("content-type"), "text/plain; charset=utf-8");
    assertEquals(text.headers.get("x-content-type-options"), "nosniff");
    assertEquals(
      text.headers.get("content-security-policy"),
      "default-src 'none'; sandbox; frame-ancestors 'none'",
    );
    assertEquals(text.headers.get("content-disposition"), null);
    for (const path of ["bin.dat", "latin1.txt"]) {
      const download = await raw(sha, path);
      assertEquals(download.status, 200, path);
      assertEquals(download.headers.get("content-type"), "application/octet-stream");
      assert(
        download.headers.get("content-disposition")!.startsWith(`attachment; filename="${path}"`),
      );
    }
    assertEquals((await raw(sha, "bin.dat")).body, "\x01\x02\x00\x03");
    // A symbolic link's bytes are its target path: never followed, not even inside the repository.
    assertEquals((await raw(sha, "link.txt")).body, "a.txt");
    assertEquals((await raw(sha, "escape.txt")).body, "../../../etc/passwd");
    const big = await raw(sha, "big.txt");
    assertEquals(big.status, 413);
    assertIncludes(big.body, "READ_SCAN_LIMIT");
    assertEquals((await raw(sha, "docs")).status, 404);
    assertEquals((await raw(sha, "nope.txt")).status, 404);
    // The blob page links its raw bytes.
    assertIncludes(
      (await pageRequest(handle, `/sourcegraph/org/open/-/blob/${sha}/a.txt`)).body,
      `href="/sourcegraph/org/open/-/raw/${sha}/a.txt"`,
    );
    // A private repository's raw file is as missing as a missing one, until the viewer may see it.
    const closed = "/sourcegraph/org/closed/-/raw/main/a.txt";
    const missing = await pageRequest(handle, "/sourcegraph/org/none/-/raw/main/a.txt");
    const hidden = await pageRequest(handle, closed);
    assertEquals([hidden.status, hidden.body], [missing.status, missing.body]);
    const member = await pageRequest(handle, closed, { token: WORLD_TOKEN });
    assertEquals(member.status, 302);
    const seen = await pageRequest(
      handle,
      new URL(member.headers.get("location")!, "http://x").pathname,
      {
        token: WORLD_TOKEN,
      },
    );
    assertEquals(seen.body, "closed secret\n");
    for (const tail of TRAVERSALS) {
      const answer = await pageRequest(handle, `/sourcegraph/org/open/-/raw/${sha}${tail}`);
      assert([302, 400, 404].includes(answer.status), `${tail}: ${answer.status}`);
      assert(!answer.body.includes("root:"), tail);
    }
  },
);

pageCases.add(
  "pages: traversal in every encoding stays inside the repository",
  async ({ handle, sha }) => {
    const base = `/sourcegraph/org/open/-/blob/${sha}`;
    for (const tail of TRAVERSALS) {
      const answer = await pageRequest(handle, base + tail);
      assert([302, 400, 404].includes(answer.status), `${tail}: ${answer.status}`);
      assert(!answer.body.includes("root:"), tail);
    }
    const tree = await pageRequest(handle, `/sourcegraph/org/open/-/tree/${sha}/%2e%2e`);
    assert([400, 404].includes(tree.status), String(tree.status));
  },
);

// The bound on sessions kept at once, injected (the service keeps MAX_SESSIONS).
const MAX_KEPT = 200;

Deno.test("sessions: kept in the control store by the hash of their id, they survive a restart, expire, end with their key, and their number is bounded", async () => {
  const dir = await tempDir("sg-sessions-");
  try {
    const path = join(dir, "control.sqlite3");
    let now = 1_000;
    let keyValid = true;
    const open = () => {
      const store = new SqliteControlStore(path);
      const sessions = new Sessions(store.sessions, {
        valid: (caller) => caller.kind === "service" || keyValid,
        ttlMs: 60_000,
        now: () => now,
        maxSessions: MAX_KEPT,
      });
      return { store, sessions };
    };
    let { store, sessions } = open();
    const session = await sessions.create({ kind: "service" });
    const keyed = await sessions.create({ kind: "key", id: "key_1" });
    assertEquals((await sessions.get(session.id))?.caller, { kind: "service" });
    assert(session.id !== session.csrf && session.id.length >= 43);
    await store.close();
    // A restart: a new store on the same file still knows the session.
    ({ store, sessions } = open());
    assertEquals(
      (await sessions.get(session.id))?.csrf,
      session.csrf,
      "a sign-in survives a restart",
    );
    const bytes = new TextDecoder("latin1").decode(await Deno.readFile(path));
    assert(!bytes.includes(session.id) && !bytes.includes(keyed.id), "ids are stored as hashes");
    keyValid = false;
    assertEquals(await sessions.get(keyed.id), null, "a revoked key's session ends");
    assertEquals(await sessions.get("x".repeat(10_000)), null);
    now += 60_001;
    assertEquals(await sessions.get(session.id), null, "expired");
    assertEquals(await sessions.get(undefined), null);
    assertEquals(await sessions.size(), 0, "expired and revoked sessions are dropped");
    for (let i = 0; i < MAX_KEPT + 50; i++) await sessions.create({ kind: "service" });
    assertEquals(await sessions.size(), MAX_KEPT);
    await store.close();
  } finally {
    await removeDir(dir);
  }
});

pageCases.add(
  "pages: the connect page configures clients for this site; llms.txt; the plugins and search tabs",
  async ({ handle, sha }) => {
    const unescape = (text: string) =>
      text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(
        /&gt;/g,
        ">",
      )
        .replace(/&amp;/g, "&");
    const snippet = (html: string, id: string) =>
      unescape(new RegExp(`<pre id="${id}"[^>]*>([^<]*)</pre>`).exec(html)![1]);
    const connect = await pageRequest(handle, "/sourcegraph/-/connect", { token: WORLD_TOKEN });
    assert(!connect.body.includes(WORLD_TOKEN), "the page never shows a token");
    const json = JSON.parse(snippet(connect.body, "config-json"));
    assertEquals(json.mcpServers.sourcegraph, {
      type: "http",
      url: "http://127.0.0.1/sourcegraph/mcp?plugins=auto",
    });
    const withHeader = JSON.parse(snippet(connect.body, "config-json-header"));
    assertEquals(withHeader.mcpServers.sourcegraph.headers, {
      Authorization: "Bearer ${SOURCEGRAPH_TOKEN}",
    });
    const toml = parseToml(snippet(connect.body, "config-codex")) as {
      mcp_servers: { sourcegraph: { url: string; bearer_token_env_var: string } };
    };
    assertEquals({ ...toml.mcp_servers.sourcegraph }, {
      url: "http://127.0.0.1/sourcegraph/mcp?plugins=auto",
      bearer_token_env_var: "SOURCEGRAPH_TOKEN",
    });
    assertIncludes(snippet(connect.body, "config-claude"), "claude mcp add --transport http");
    for (const mode of ["plugins=auto", "plugins=off", "plugins=name-a,name-b"]) {
      assertIncludes(connect.body, mode);
    }
    const llms = await pageRequest(handle, "/sourcegraph/plugins/llms.txt");
    assertEquals(llms.headers.get("content-type"), "text/plain; charset=UTF-8");
    for (const term of ["abi_version", "sourcegraph.plugin.v1", "read_file", "/-/blob/<sha>/"]) {
      assertIncludes(llms.body, term);
    }
    const plugins = await pageRequest(handle, "/sourcegraph/org/open/-/plugins");
    assertEquals(plugins.status, 200);
    for (const text of ["related-content", "Related content", "read, read_many", "plugins"]) {
      assertIncludes(plugins.body, text);
    }
    assertIncludes(plugins.body, sha.slice(0, 12));
    const search = await pageRequest(handle, "/sourcegraph/org/open/-/search?q=three");
    assertIncludes(search.body, `href="/sourcegraph/org/open/-/blob/${sha}/a.txt#L3"`);
    assertIncludes(search.body, "<td><mark>three</mark></td>");
    assertIncludes(search.body, "RE2 regex, per line, case-sensitive: 1 match(es)");
    // Each match of a line is marked where the search's own program matched, case ignored too.
    const lines = await pageRequest(
      handle,
      "/sourcegraph/org/open/-/search?q=LINE%20%5B0-9%5D&case=1",
    );
    assertIncludes(lines.body, "<td><mark>line 1</mark></td>");
    assertIncludes(lines.body, "RE2 regex, per line, ignoring case:");
    assertIncludes(
      (await pageRequest(handle, "/sourcegraph/org/open/-/search?q=three&fixed=1")).body,
      "Fixed string, per line, case-sensitive:",
    );
    const twice = await pageRequest(handle, "/sourcegraph/org/open/-/search?q=e&glob=a.txt");
    assertIncludes(twice.body, "<td>thr<mark>e</mark><mark>e</mark></td>");
    // Empty matches (a word boundary) mark nothing, and the marking ends.
    const empty = await pageRequest(handle, "/sourcegraph/org/open/-/search?q=%5Cbq%3F&glob=a.txt");
    assertIncludes(empty.body, "<td>one</td>");
    const bad = await pageRequest(handle, "/sourcegraph/org/open/-/search?q=%28");
    assertEquals(bad.status, 200);
    assertIncludes(bad.body, "INVALID_PATTERN");
    // Without a repository, the home page's search box searches every visible one.
    const everywhere = await pageRequest(handle, "/sourcegraph/-/search?q=secret");
    assertEquals(everywhere.status, 200);
    assert(!everywhere.body.includes("org/closed"), "a private repository never shows");
    const three = await pageRequest(handle, "/sourcegraph/-/search?q=three");
    assertIncludes(three.body, `href="/sourcegraph/org/open/-/blob/${sha}/a.txt#L3"`);
    assertIncludes(three.body, "1 of 1 repositories searched");
    assertIncludes(three.body, "<td><mark>three</mark></td>");
    const home = await pageRequest(handle, "/sourcegraph/");
    assertIncludes(home.body, '<option value="">all repositories</option>');
    const fromHome = await pageRequest(handle, "/sourcegraph/-/search?repo=org%2Fopen&q=three");
    assertEquals(fromHome.status, 303);
    assert(fromHome.headers.get("location")!.endsWith("/sourcegraph/org/open/-/search?q=three"));
  },
);

Deno.test("pages: the symbols tab finds definitions, links their lines, pages on, and says what is wrong", () =>
  withInProcessService(async ({ handle, heads }) => {
    const sha = heads.get("org/code")!;
    const tab = (query: string) => pageRequest(handle, `/sourcegraph/org/code/-/symbols${query}`);
    await waitFor(async () => !(await tab("?q=Store")).body.includes("INDEX_NOT_READY"));
    const found = await tab("?q=Store");
    assertEquals(found.status, 200);
    assertIncludes(found.body, `href="/sourcegraph/org/code/-/blob/${sha}/src/store.ts#L1-L5"`);
    assertIncludes(found.body, 'aria-current="page">Symbols<');
    const methods = await tab("?q=get&match=prefix&kind=method");
    assertIncludes(methods.body, "in Store");
    assertIncludes(methods.body, "getAll");
    const paged = await tab("?q=^item&match=regex");
    assertIncludes(paged.body, "60 definition(s)");
    const more = /href="([^"]*after=[^"]*)">More definitions/.exec(paged.body);
    assert(more !== null, "a next page link");
    const next = await pageRequest(handle, more[1].replace(/&amp;/g, "&"));
    assertEquals(next.status, 200);
    assertIncludes(next.body, "item59");
    const bad = await tab("?q=%28&match=regex");
    assertEquals(bad.status, 200);
    assertIncludes(bad.body, "INVALID_PATTERN");
    const badCursor = await tab("?q=Store&after=zz");
    assertIncludes(badCursor.body, "INVALID_CURSOR");
  }, {
    repositories: [{
      name: "org/code",
      publicRead: true,
      files: {
        "src/store.ts":
          "export class Store {\n  get(): number { return 1; }\n  getAll(): number[] { return []; }\n  size = 0;\n}\n",
        "src/items.ts": Array.from({ length: 60 }, (_, i) => `export const item${i} = ${i};`)
          .join("\n") + "\n",
      },
    }],
    searchIndex: true,
  }));

Deno.test("pages: SOURCEGRAPH_PUBLIC_URL is the origin the connect page advertises", () =>
  withInProcessService(async ({ handle }) => {
    const connect = await pageRequest(handle, "/sourcegraph/-/connect");
    assertIncludes(connect.body, "https://code.example.org/sourcegraph/mcp?plugins=auto");
    assert(!connect.body.includes("http://127.0.0.1/sourcegraph/mcp"));
  }, { publicUrl: "https://code.example.org" }));

pageCases.add(
  "pages: a flood of distinct and hostile page requests keeps memory flat",
  async ({ handle, sha }) => {
    const paths = (round: number) =>
      Array.from({ length: 200 }, (_, i) => {
        const n = round * 1000 + i;
        // (Searches that run Git are flooded in the search tests; these stay in the pages.)
        return [
          `/sourcegraph/org/open/-/search?q=%28w${n}x`,
          `/sourcegraph/org/open/-/blob/${sha}/missing${n}.txt`,
          `/sourcegraph/org${n}/x${n}/-/versions`,
          `/sourcegraph/-/sign-in`,
          `/sourcegraph/org/open/-/tree/${sha}/%2e%2e${n}`,
          `/sourcegraph/org/open/-/blob/${sha}/a.txt?start=${1 + (n % 5)}`,
        ][i % 6];
      });
    // 20 requests in flight at a time; three rounds warm up (caches, JIT, allocator).
    const run = async (round: number) => {
      const all = paths(round);
      for (let i = 0; i < all.length; i += 20) {
        await Promise.all(all.slice(i, i + 20).map((path) => pageRequest(handle, path)));
      }
    };
    for (let round = 0; round < 3; round++) await run(round);
    // Peaks of 20 requests at once stay with the allocator: the resident size settles
    // within the first thousands of requests, then must stay flat.
    for (let round = 3; round < 13; round++) await run(round);
    const before = retainedMemory();
    for (let round = 13; round < 23; round++) await run(round);
    const after = retainedMemory();
    const heap = (after.heapUsed - before.heapUsed) / 1024 / 1024;
    assert(heap < 8, `the heap kept ${heap.toFixed(1)} MiB more after 2,000 page requests`);
    const grown = (after.rss - before.rss) / 1024 / 1024;
    assert(grown < 40, `RSS grew ${grown.toFixed(1)} MiB over 2,000 page requests`);
  },
);

Deno.test("pages: anonymous page views spend the anonymous budget, a search as much as on MCP", () =>
  withInProcessService(async ({ handle }) => {
    for (let i = 0; i < 2; i++) {
      assertEquals((await pageRequest(handle, "/sourcegraph/")).status, 200);
    }
    for (let i = 0; i < 2; i++) {
      const search = await pageRequest(handle, "/sourcegraph/org/open/-/search?q=open");
      assertEquals(search.status, 200);
    }
    const refused = await pageRequest(handle, "/sourcegraph/org/open/-/search?q=open");
    assertEquals(refused.status, 429);
    assertIncludes(refused.body, "RATE_LIMITED");
    // A signed-in caller is not limited.
    assertEquals((await pageRequest(handle, "/sourcegraph/", { token: WORLD_KEY })).status, 200);
  }, { settings: { anonymousPerMinute: 12 } }));

Deno.test("pages: a search is shown a bounded page at a time; the pages' cursors cover every match once", () =>
  withInProcessService(async ({ handle }) => {
    const matches = (body: string) =>
      [...body.matchAll(
        /<tr><td class="num"><a href="[^"]*\/-\/blob\/[0-9a-f]{40}\/([^"#]+)#L(\d+)"/g,
      )]
        .map((m) => `${m[1]}:${m[2]}`);
    let url: string | null = "/sourcegraph/org/wide/-/search?q=needle&context=0";
    const seen: string[] = [];
    let pages = 0;
    let commit: string | null = null;
    while (url !== null) {
      const shown = await pageRequest(handle, url);
      assertEquals(shown.status, 200);
      pages++;
      // Each page is bounded, however many files match.
      assert(shown.body.length < 160_000, `page ${pages} is ${shown.body.length} bytes`);
      const sha = /\/-\/blob\/([0-9a-f]{40})\//.exec(shown.body)![1];
      commit ??= sha;
      assertEquals(sha, commit, "every page reads the commit the first one pinned");
      seen.push(...matches(shown.body));
      const next = /<a class="next-page" href="([^"]*)">Next page<\/a>/.exec(shown.body);
      url = next === null ? null : next[1].replaceAll("&amp;", "&");
    }
    // 303 files of two matches each (about 80 a page), and one file of 25 matching lines.
    const expected = [
      ...Array.from({ length: 303 }, (_, i) => String(i).padStart(4, "0"))
        .flatMap((n) => [`f/${n}.txt:1`, `f/${n}.txt:3`]),
      ...Array.from({ length: 10 }, (_, i) => `g/many.txt:${i + 1}`),
    ].sort();
    // A first page, pages reached through a cursor of a page itself reached through one, a last.
    assert(pages >= 4, `${pages} pages`);
    assertEquals(seen.length, new Set(seen).size, "no match is shown twice");
    assertEquals([...seen].sort(), expected);
    // A cursor no search gave: the tool's error, 400, on the search page with its form.
    for (const forged of ["bm90", "WyJ4Il0", "%E2%9C%93"]) {
      const bad = await pageRequest(
        handle,
        `/sourcegraph/org/wide/-/search?q=needle&after=${forged}`,
      );
      assertEquals(bad.status, 400);
      assertIncludes(bad.body, "INVALID_CURSOR");
      assertIncludes(bad.body, "the cursor is not one a search returned");
      assertIncludes(bad.body, `name="q" value="needle"`);
    }
  }, {
    repositories: [{
      name: "org/wide",
      publicRead: true,
      files: {
        ...Object.fromEntries(
          Array.from(
            { length: 303 },
            (_, i) => [`f/${String(i).padStart(4, "0")}.txt`, "needle\nhay\nneedle\n"],
          ),
        ),
        "g/many.txt": "needle\n".repeat(25),
      },
    }],
  }));

Deno.test("pages: search results show dimmed context around matches, a separator between distant lines", () =>
  withInProcessService(async ({ handle }) => {
    const rows = (body: string) =>
      [...body.matchAll(/<tr class="(context|gap)">|<tr><td class="num">/g)].map((m) =>
        m[1] ?? "match"
      );
    // Default: one line each side; 5 and 7 share line 6; 20 is apart.
    const one = await pageRequest(handle, "/sourcegraph/org/open/-/search?q=match&glob=c.txt");
    assertEquals(rows(one.body), [
      "context",
      "match",
      "context",
      "match",
      "context",
      "gap",
      "context",
      "match",
      "context",
    ]);
    assert(/<option value="1" selected[^>]*>1<\/option>/.test(one.body), "the form says 1");
    assertIncludes(one.body, "line 4");
    assertIncludes(one.body, "line 21");
    assert(!one.body.includes("line 3<"), "two lines away is not shown");
    // None: the matches alone, a separator wherever they do not touch.
    const none = await pageRequest(
      handle,
      "/sourcegraph/org/open/-/search?q=match&glob=c.txt&context=0",
    );
    assertEquals(rows(none.body), ["match", "gap", "match", "gap", "match"]);
    // Three: 5 and 7 merge with their surroundings, 20 apart; out of range falls back to 1.
    const three = await pageRequest(
      handle,
      "/sourcegraph/org/open/-/search?q=match&glob=c.txt&context=3",
    );
    assertEquals(rows(three.body).filter((row) => row !== "context"), [
      "match",
      "match",
      "gap",
      "match",
    ]);
    assertIncludes(three.body, "line 2<");
    const wild = await pageRequest(
      handle,
      "/sourcegraph/org/open/-/search?q=match&glob=c.txt&context=99",
    );
    assertEquals(rows(wild.body), rows(one.body));
  }, {
    repositories: [{
      name: "org/open",
      publicRead: true,
      files: { "c.txt": lines30() },
    }],
  }));

Deno.test("pages: the all-repositories search takes the Search tab's fixed-string, ignore-case and glob", () =>
  withInProcessService(async ({ handle }) => {
    const files = (body: string) =>
      [...body.matchAll(
        /class="match-file"><a href="\/sourcegraph\/([^"]+)\/-\/blob\/[0-9a-f]{40}\/([^"]+)"/g,
      )]
        .map((m) => `${m[1]}:${m[2]}`).sort();
    const search = (query: string) => pageRequest(handle, `/sourcegraph/-/search?${query}`);
    // The same field names as the Search tab's form.
    const form = (await search("q=x")).body;
    for (const field of ['name="glob"', 'name="fixed" value="1"', 'name="case" value="1"']) {
      assertIncludes(form, field);
    }
    // A regex: "o+" repeats the o, so the literal plus sign is not found.
    assertEquals(files((await search("q=foo%2Bbar")).body), ["org/a:x.ts"]);
    const fixed = await search("q=foo%2Bbar&fixed=1");
    assertEquals(files(fixed.body), ["org/a:x.ts", "org/a:y.md"]);
    assertIncludes(fixed.body, "Fixed string, per line, case-sensitive");
    assert(/name="fixed" value="1" checked/.test(fixed.body), "the form keeps fixed string");
    const anyCase = await search("q=FOOBAR&case=1");
    assertEquals(files(anyCase.body), ["org/a:x.ts"]);
    assertIncludes(anyCase.body, "ignoring case");
    assert(/name="case" value="1" checked/.test(anyCase.body), "the form keeps ignore case");
    assertEquals(files((await search("q=FOOBAR")).body), []);
    const globbed = await search("q=foo%2Bbar&fixed=1&glob=*.md");
    assertEquals(files(globbed.body), ["org/a:y.md"]);
    assertIncludes(globbed.body, 'name="glob" value="*.md"');
    // A private repository stays out, whatever the options.
    for (const query of ["q=foo%2Bbar&fixed=1", "q=FOOBAR&case=1&glob=*"]) {
      assert(!(await search(query)).body.includes("org/b"), query);
    }
  }, {
    repositories: [
      {
        name: "org/a",
        publicRead: true,
        files: { "x.ts": "fooobar\nFooBar\nfoo+bar\n", "y.md": "foo+bar\n" },
      },
      { name: "org/b", publicRead: false, files: { "z.ts": "foo+bar\nfoobar\n" } },
    ],
  }));

function lines30(): string {
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
  lines[4] = "match five";
  lines[6] = "match seven";
  lines[19] = "match twenty";
  return lines.join("\n") + "\n";
}

pageCases.add(
  "a browser opening the MCP address gets a page saying what it is; MCP clients get what they always got",
  async ({ handle }) => {
    const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    const browser = await pageRequest(handle, "/sourcegraph/mcp", {
      headers: { accept: browserAccept },
    });
    assertEquals(browser.status, 200);
    assertIncludes(browser.headers.get("content-type") ?? "", "text/html");
    assertIncludes(browser.body, "This is an MCP endpoint");
    assertIncludes(browser.body, "<code>http://127.0.0.1/sourcegraph/mcp</code>");
    assertIncludes(browser.body, `<a href="/sourcegraph/-/connect">Connect page</a>`);
    // An MCP client's GET (an event stream), one that accepts anything, and DELETE: as before.
    for (
      const [method, accept] of [
        ["GET", "text/event-stream"],
        ["GET", "text/html, text/event-stream"],
        ["GET", "*/*"],
        ["DELETE", browserAccept],
      ]
    ) {
      const answer = await pageRequest(handle, "/sourcegraph/mcp", {
        method,
        headers: { accept },
      });
      assertEquals(answer.status, 405, `${method} ${accept}`);
      assertEquals(answer.headers.get("allow"), "POST");
      assertEquals(JSON.parse(answer.body).error.code, -32000);
    }
    // A real MCP client still lists and calls tools.
    const client = await connectInProcess(handle);
    try {
      const tools = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
      assert(tools.includes("read"), tools.join(", "));
      const read = await client.callTool({
        name: "read",
        arguments: { repo: "org/open", path: "a.txt" },
      });
      assert(!read.isError, JSON.stringify(read));
    } finally {
      await client.close();
    }
  },
);

pageCases.add(
  "a missing file's page links the nearest paths at that version, names escaped",
  async ({ handle, sha }) => {
    const missing = await pageRequest(
      handle,
      `/sourcegraph/org/open/-/blob/${sha}/${encodeURIComponent(HOSTILE_NAME.slice(0, -1))}`,
    );
    assertEquals(missing.status, 404);
    assertIncludes(missing.body, "FILE_NOT_FOUND");
    const links = [...missing.body.matchAll(/<li><a href="([^"]*)">([^<]*)<\/a><\/li>/g)];
    assert(links.length > 0, missing.body);
    assertEquals(
      links[0][1],
      `/sourcegraph/org/open/-/blob/${sha}/${encodeURIComponent(HOSTILE_NAME)}`,
    );
    assertEquals(
      links[0][2],
      HOSTILE_NAME.replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;"),
    );
    assert(!EVENT_ATTRIBUTE.test(missing.body), "no event attribute from a name");
  },
);

pageCases.add(
  "pages: sign-in makes a server-side session; CSRF guards every change; sign-out and revocation end it",
  async ({ handle, store }) => {
    const form = await pageRequest(handle, "/sourcegraph/-/sign-in");
    const formCookie = setCookie(form, "sg_sign_in")!;
    assertIncludes(formCookie, "HttpOnly");
    assertIncludes(formCookie, "SameSite=Strict");
    assertIncludes(formCookie, "Path=/sourcegraph");
    const csrf = hiddenField(form.body, "csrf")!;
    assertEquals(cookiePair(formCookie), `sg_sign_in=${csrf}`);
    const signIn = (fields: Record<string, string>, cookie = cookiePair(formCookie)) =>
      pageRequest(handle, "/sourcegraph/-/sign-in", { form: fields, cookie });
    assertEquals((await signIn({ csrf, secret: WORLD_KEY }, "")).status, 403, "no cookie");
    assertEquals((await signIn({ csrf: "x".repeat(csrf.length), secret: WORLD_KEY })).status, 403);
    const wrong = await signIn({ csrf, secret: "sgk_wrong" });
    assertEquals(wrong.status, 401);
    assertEquals(setCookie(wrong, "sg_session"), null);
    const ok = await signIn({ csrf, secret: WORLD_KEY });
    assertEquals(ok.status, 303);
    const sessionCookie = setCookie(ok, "sg_session")!;
    for (const attribute of ["HttpOnly", "SameSite=Strict", "Path=/sourcegraph"]) {
      assertIncludes(sessionCookie, attribute);
    }
    assert(!sessionCookie.includes("Secure"), "plain http on loopback");
    const cookie = cookiePair(sessionCookie);
    assert(!cookie.includes(WORLD_KEY) && !cookie.includes(keyHash(WORLD_KEY)), "never the key");
    const home = await pageRequest(handle, "/sourcegraph/", { cookie });
    assertIncludes(home.body, "org/closed");
    assertIncludes(home.body, "personal key");
    const sessionCsrf = hiddenField(home.body, "csrf")!;
    const signOut = (fields: Record<string, string>) =>
      pageRequest(handle, "/sourcegraph/-/sign-out", { form: fields, cookie });
    assertEquals((await signOut({ csrf: "nope" })).status, 403);
    assertEquals((await signOut({})).status, 403);
    assertIncludes((await pageRequest(handle, "/sourcegraph/", { cookie })).body, "org/closed");
    const out = await signOut({ csrf: sessionCsrf });
    assertEquals(out.status, 303);
    assertIncludes(setCookie(out, "sg_session")!, "Max-Age=0");
    assert(!(await pageRequest(handle, "/sourcegraph/", { cookie })).body.includes("org/closed"));
    // A session of a revoked key ends with the key.
    const again = cookiePair(setCookie(await signIn({ csrf, secret: WORLD_KEY }), "sg_session")!);
    assertIncludes(
      (await pageRequest(handle, "/sourcegraph/", { cookie: again })).body,
      "org/closed",
    );
    await store.removeKey("key_1");
    assert(
      !(await pageRequest(handle, "/sourcegraph/", { cookie: again })).body.includes("org/closed"),
    );
    // The service token signs in too, and https (at a proxy in front) makes the cookie Secure.
    const secure = await handle(
      new Request("http://127.0.0.1/sourcegraph/-/sign-in", {
        method: "POST",
        headers: {
          host: "127.0.0.1",
          "x-forwarded-proto": "https",
          cookie: cookiePair(formCookie),
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ csrf, secret: WORLD_TOKEN }).toString(),
        redirect: "manual",
      }),
    );
    assertEquals(secure.status, 303);
    assertIncludes(secure.headers.get("set-cookie")!, "Secure");
    const huge = await signIn({ csrf, secret: "s".repeat(100_000) });
    assertEquals(huge.status, 413, "a form body is bounded");
  },
);
