import {
  assert,
  assertEquals,
  assertIncludes,
  assertRejects,
  waitFor,
} from "../../support/assert.ts";
import type { Caller } from "../../../sourcegraph/access/caller.ts";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";
import {
  inProcessFetch,
  type InProcessWorld,
  withInProcessService,
  WORLD_KEY,
  WORLD_TOKEN,
  type WorldRepository,
} from "../../support/in_process_service.ts";
import { pageRequest } from "../../support/page_requests.ts";
import { SharedCases } from "../../support/shared_cases.ts";
import { encodeScip } from "../../support/scip_fixtures.ts";
import { IDENTIFIER_LINKS_MAX } from "../../../sourcegraph/web/code/identifier_links.ts";

const HOSTILE_PATH = `src/"q'<script>x.ts`;

export const NAV_FILES: Record<string, string> = {
  "src/util.ts": [
    "export function helper(x: number): number {",
    "  return x + 1;",
    "}",
    "export class Box {",
    "  size(): number { return 1; }",
    "}",
    "",
  ].join("\n"),
  "src/main.ts": [
    'import { helper } from "./util.ts";',
    "",
    "// helper in a comment",
    'export const answer = helper(41) + "helper".length;',
    "const ünï = helper(1); const after = ünï;",
    "",
  ].join("\n"),
  "src/twice_a.ts": "export function twice(): number { return 1; }\n",
  "src/twice_b.ts": "export function twice(): number { return 2; }\n",
  "src/call_twice.ts": "declare const x: { twice(): number };\nx.twice();\n",
  "notes.json": '{ "helper": [1, 2], "name": "helper" }\n',
  [HOSTILE_PATH]: 'import { helper } from "./util.ts";\nexport const y = helper(2);\n',
};

/** The world of these tests: `org/nav`, `org/groups` (docs only) and a private one. */
export const NAV_REPOSITORIES: WorldRepository[] = [
  { name: "org/nav", publicRead: true, files: NAV_FILES },
  {
    name: "org/groups",
    publicRead: true,
    files: {
      "docs/open.ts": "export const open = 1;\nexport const again = open;\n",
      "secret/hidden.ts": "export const hidden = 1;\nexport const twice = hidden;\n",
    },
    pathGroups: [{ name: "docs", paths: ["docs"] }],
  },
  {
    name: "org/closed",
    publicRead: false,
    files: { "a.ts": "export const closedSecret = 1;\nconst b = closedSecret;\n" },
  },
];

function withNav(fn: (world: InProcessWorld & { sha: string }) => Promise<void>): Promise<void> {
  return withInProcessService(async (world) => {
    const sha = world.heads.get("org/nav")!;
    // The outline and the index's answers need the symbol index of the commit.
    for (
      const [repo, name, path] of [["nav", "helper", "util.ts"], ["groups", "open", "open.ts"]]
    ) {
      await waitFor(async () =>
        (await pageRequest(world.handle, `/sourcegraph/org/${repo}/-/symbols?q=${name}`)).body
          .includes(path)
      );
    }
    await fn({ ...world, sha });
  }, { repositories: NAV_REPOSITORIES, searchIndex: true });
}

// The cases on one world of NAV_REPOSITORIES (indexed), in order.
const navCases = new SharedCases<InProcessWorld & { sha: string }>();

Deno.test("navigation on one world of org/nav, org/groups and a private repository", (t) =>
  withNav((world) => navCases.run(t, world)));

// The hrefs of the links inside row `n`'s code cell, and the texts they hold.
function rowLinks(body: string, n: number): [string, string][] {
  const row = new RegExp(`<tr id="L${n}">.*?</tr>`).exec(body)?.[0] ?? "";
  const code = row.slice(row.indexOf("</td><td>"));
  return [...code.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)].map((m) => [m[1], m[2]]);
}

navCases.add(
  "navigation: names link to their definition; keywords, strings and comments never",
  async ({ handle, sha }) => {
    const file = await pageRequest(handle, `/sourcegraph/org/nav/-/blob/${sha}/src/main.ts`);
    assertEquals(file.status, 200);
    // Line 1: `import { helper } from "./util.ts";` — only the name; not `import`, `from`, the string.
    assertEquals(rowLinks(file.body, 1), [["?line=1&amp;column=10", "helper"]]);
    // A comment has no links; on line 4 `export const` are keywords and "helper" a string.
    assertEquals(rowLinks(file.body, 3), []);
    assertEquals(
      rowLinks(file.body, 4).map(([, name]) => name),
      ["answer", "helper", "length"],
    );
    // Columns count characters (code points), as the tools take them.
    const line5 = rowLinks(file.body, 5);
    assertEquals(line5.find(([, name]) => name === "after")?.[0], "?line=5&amp;column=30");
    // A link is the file page's own URL with the position: it sends on to the definition view.
    const link = await pageRequest(
      handle,
      `/sourcegraph/org/nav/-/blob/${sha}/src/main.ts?line=4&column=24`,
    );
    assertEquals(link.status, 302);
    const definition = `/sourcegraph/org/nav/-/definition/${sha}/src/main.ts?line=4&column=24`;
    assertEquals(link.headers.get("location"), definition);
    // One place: a redirect to its line on the file page at the same SHA.
    const found = await pageRequest(handle, definition);
    assertEquals(found.status, 303);
    assertEquals(
      found.headers.get("location"),
      `/sourcegraph/org/nav/-/blob/${sha}/src/util.ts#L1`,
    );
    // A file in no language the symbol index reads has no links at all.
    const notes = await pageRequest(handle, `/sourcegraph/org/nav/-/blob/${sha}/notes.json`);
    assertEquals(notes.status, 200);
    assertIncludes(notes.body, "hljs-");
    assert(!notes.body.includes('href="?line='), notes.body);
  },
);

navCases.add(
  "navigation: several places or none are a list page that links to the references",
  async ({ handle, sha }) => {
    const several = await pageRequest(
      handle,
      `/sourcegraph/org/nav/-/definition/${sha}/src/call_twice.ts?line=2&column=3`,
    );
    assertEquals(several.status, 200, several.body);
    // The index holds three: the method the file declares (the likeliest), and two functions.
    assertIncludes(several.body, "3 places define <code>twice</code>; the likeliest first");
    assertIncludes(several.body, `href="/sourcegraph/org/nav/-/blob/${sha}/src/call_twice.ts#L1"`);
    assertIncludes(several.body, `href="/sourcegraph/org/nav/-/blob/${sha}/src/twice_a.ts#L1"`);
    assertIncludes(several.body, `href="/sourcegraph/org/nav/-/blob/${sha}/src/twice_b.ts#L1"`);
    assertIncludes(
      several.body,
      `href="/sourcegraph/org/nav/-/references/${sha}/src/call_twice.ts?line=2&amp;column=3"`,
    );
    const none = await pageRequest(
      handle,
      `/sourcegraph/org/nav/-/definition/${sha}/src/main.ts?line=4&column=45`,
    );
    assertEquals(none.status, 200);
    assertIncludes(none.body, "No definition found");
    assertIncludes(none.body, "/-/references/");
    // A branch redirects to its SHA, the position kept.
    const branch = await pageRequest(
      handle,
      `/sourcegraph/org/nav/-/definition/main/src/main.ts?line=4&column=24`,
    );
    assertEquals(branch.status, 302);
    assertEquals(
      branch.headers.get("location"),
      `/sourcegraph/org/nav/-/definition/${sha}/src/main.ts?line=4&column=24`,
    );
  },
);

navCases.add(
  "navigation: the references view lists rows by file with roles, definition first",
  async ({ handle, sha }) => {
    const url = `/sourcegraph/org/nav/-/references/${sha}/src/main.ts?line=4&column=24`;
    const answer = await pageRequest(handle, url);
    assertEquals(answer.status, 200, answer.body);
    assertIncludes(answer.body, "Search-based");
    const files = [
      ...answer.body.matchAll(/<section class="reference-file"><h2><a href="[^"]*">([^<]*)</g),
    ]
      .map((m) => m[1]);
    assertEquals(files[0], "src/util.ts");
    assertEquals(
      [...files].sort(),
      ["src/&quot;q&#39;&lt;script&gt;x.ts", "src/main.ts", "src/util.ts"],
    );
    // Roles as the tool names them; rows link to their line at the SHA.
    assertIncludes(answer.body, '<span class="role role-definition">definition</span>');
    assertIncludes(answer.body, '<span class="role role-import">import</span>');
    assertIncludes(answer.body, '<span class="role role-call">call</span>');
    assertIncludes(answer.body, `href="/sourcegraph/org/nav/-/blob/${sha}/src/main.ts#L4"`);
    // The comment and the string are not references.
    assert(!answer.body.includes('#L3"'), "the comment's line is listed");
    // The hostile path is text and its link is encoded.
    assertIncludes(answer.body, `/src/%22q&#39;%3Cscript%3Ex.ts#L2"`);
    assertIncludes(answer.body, "<td>export const y = helper(2);</td>");
    assertEquals(answer.body.match(/<script/g)?.length, 1);
  },
);

Deno.test("navigation: the references view pages with the tool's cursor; a forged one is refused", () =>
  withInProcessService(async ({ handle, heads }) => {
    const sha = heads.get("org/many")!;
    const url = `/sourcegraph/org/many/-/references/${sha}/f00.ts?line=1&column=14`;
    const first = await pageRequest(handle, url);
    assertEquals(first.status, 200, first.body);
    const next = /href="([^"]*after=[^"]*)">Next page/.exec(first.body);
    assert(next !== null, "a next page link");
    const rows = (body: string) =>
      [...body.matchAll(/<section class="reference-file"><h2><a href="[^"]*">([^<]*)</g)].map((
        m,
      ) => m[1]);
    const second = await pageRequest(handle, next[1].replace(/&amp;/g, "&"));
    assertEquals(second.status, 200, second.body);
    const seen = [...rows(first.body), ...rows(second.body)];
    assertEquals(new Set(seen).size, seen.length, "a file on two pages");
    assert(rows(second.body).length > 0);
    const forged = await pageRequest(handle, `${url}&after=AAAA`);
    assertEquals(forged.status, 400);
    assertIncludes(forged.body, "INVALID_CURSOR");
  }, {
    repositories: [{
      name: "org/many",
      publicRead: true,
      files: Object.fromEntries(
        Array.from({ length: 70 }, (_, i) => [
          `f${String(i).padStart(2, "0")}.ts`,
          i === 0 ? "export const shared = 1;\n" : 'import { shared } from "./f00.ts";\nshared;\n',
        ]),
      ),
    }],
  }));

navCases.add(
  "navigation: the outline lists the file's definitions, each linked to its line",
  async ({ handle, sha }) => {
    const file = await pageRequest(handle, `/sourcegraph/org/nav/-/blob/${sha}/src/util.ts`);
    const outline = /<nav class="outline"[^>]*>.*?<\/nav>/s.exec(file.body)?.[0] ?? "";
    const entries = [...outline.matchAll(/<a href="([^"]*)"[^>]*>([^<]*)<\/a>/g)].map((m) => [
      m[1],
      m[2],
    ]);
    assertEquals(entries, [["#L1", "helper"], ["#L4", "Box"], ["#L5", "size"]]);
    // Lines past the page shown link to the page that starts there.
    const paged = await pageRequest(
      handle,
      `/sourcegraph/org/nav/-/blob/${sha}/src/util.ts?start=3`,
    );
    assertIncludes(paged.body, `href="/sourcegraph/org/nav/-/blob/${sha}/src/util.ts?start=1#L1"`);
  },
);

navCases.add(
  "navigation: hostile positions, paths and repositories answer as the tools or as missing",
  async ({ handle, sha, heads }) => {
    const view = (repo: string, rev: string, path: string, query: string) =>
      pageRequest(handle, `/sourcegraph/${repo}/-/definition/${rev}/${path}?${query}`);
    const nav = (path: string, query: string) => view("org/nav", sha, path, query);
    // Forged positions: not numbers, zero, huge, past the end of the file or the line.
    for (const query of ["line=x&column=1", "line=1", "line=0&column=1", "line=1&column=100001"]) {
      const answer = await nav("src/main.ts", query);
      assertEquals(answer.status, 400, query);
      assertIncludes(answer.body, "INVALID_ARGUMENTS");
    }
    const pastEnd = await nav("src/main.ts", "line=99&column=1");
    assertEquals(pastEnd.status, 416);
    const pastColumn = await nav("src/main.ts", "line=1&column=999");
    assertEquals(pastColumn.status, 416);
    assertIncludes(pastColumn.body, "POSITION_PAST_END");
    // A keyword is no name, as the tools say.
    const keyword = await nav("src/main.ts", "line=1&column=1");
    assertEquals(keyword.status, 400);
    assertIncludes(keyword.body, "NOT_AN_IDENTIFIER");
    // Traversal and lone surrogates in the path are no page.
    for (const path of ["src/%2e%2e/src/main.ts", "src/..%2Fmain.ts", "src/%ED%A0%80.ts"]) {
      const answer = await nav(path, "line=1&column=1");
      assert([400, 404].includes(answer.status), `${path}: ${answer.status}`);
    }
    const surrogate = await nav("src/%F0%9F%98%80.ts", "line=1&column=1");
    assertEquals(surrogate.status, 404);
    // A private repository answers as a missing one (and opens with a key).
    for (const kind of ["definition", "references"]) {
      const closed = await pageRequest(
        handle,
        `/sourcegraph/org/closed/-/${kind}/main/a.ts?line=2&column=11`,
      );
      const nowhere = await pageRequest(
        handle,
        `/sourcegraph/org/nowhere/-/${kind}/main/a.ts?line=2&column=11`,
      );
      assertEquals(closed.status, 404, kind);
      assertEquals(closed.body, nowhere.body);
      assert(!closed.body.includes("closedSecret"));
    }
    const withKey = await pageRequest(
      handle,
      `/sourcegraph/org/closed/-/definition/main/a.ts?line=2&column=11`,
      { token: WORLD_KEY },
    );
    assertEquals(withKey.status, 302);
    // A path outside the path groups answers as a missing path, in each view.
    const groups = heads.get("org/groups")!;
    for (const kind of ["definition", "references"]) {
      const at = (path: string) =>
        pageRequest(handle, `/sourcegraph/org/groups/-/${kind}/${groups}/${path}?line=2&column=14`);
      const hidden = await at("secret/hidden.ts");
      const absent = await at("secret/nothere.ts");
      assertEquals(hidden.status, 404, kind);
      assertEquals(hidden.body.replace("hidden", "nothere"), absent.body);
      assert(!hidden.body.includes("export const"), hidden.body);
      const open = await at("docs/open.ts");
      assert(open.status === 200 || open.status === 303, `${kind}: ${open.status}`);
    }
    // The references of a visible name never list the hidden files.
    const refs = await pageRequest(
      handle,
      `/sourcegraph/org/groups/-/references/${groups}/docs/open.ts?line=1&column=14`,
    );
    assert(!refs.body.includes("secret/"), refs.body);
    // The outline of a hidden path is not there either (the page is a 404 first).
    const page = await pageRequest(
      handle,
      `/sourcegraph/org/groups/-/blob/${groups}/secret/hidden.ts`,
    );
    assertEquals(page.status, 404);
  },
);

navCases.add(
  "navigation: the outline call answers a hidden path and a private repository as missing ones",
  async ({ localCalls }) => {
    const anonymous: Caller = { kind: "anonymous" };
    const refused = async (repo: string, path: string) => {
      const error = await assertRejects(
        () => localCalls.outline(anonymous, { repo, path }),
        SourcegraphError,
      );
      return [error.code, error.message.replace(path, "<path>").replace(repo, "<repo>")];
    };
    assertEquals(
      await refused("org/groups", "secret/hidden.ts"),
      await refused("org/groups", "secret/nothere.ts"),
    );
    assertEquals((await refused("org/groups", "secret/hidden.ts"))[0], "FILE_NOT_FOUND");
    assertEquals(
      await refused("org/groups", "docs/nothere.ts"),
      await refused("org/groups", "secret/hidden.ts"),
    );
    assertEquals(await refused("org/closed", "a.ts"), await refused("org/nowhere", "a.ts"));
    assertEquals((await refused("org/nav", "../src/util.ts"))[0], "INVALID_PATH");
    const open = await localCalls.outline(anonymous, { repo: "org/groups", path: "docs/open.ts" });
    assertEquals(open.symbols?.map((symbol) => symbol.name), ["open", "again"]);
  },
);

Deno.test("navigation: a file page of 100,000 names is bounded by the link cap", () =>
  withInProcessService(async ({ handle, heads }) => {
    const sha = heads.get("org/big")!;
    const page = await pageRequest(handle, `/sourcegraph/org/big/-/blob/${sha}/names.ts`);
    assertEquals(page.status, 200);
    // Highlighted, the first names up to the cap link; past the highlighter's
    // bounds the page is plain text with none. Either way the cap holds.
    const links = page.body.match(/<a href="\?line=/g)?.length ?? 0;
    assert(links <= IDENTIFIER_LINKS_MAX, `${links} links`);
    const raw = await pageRequest(handle, `/sourcegraph/org/big/-/raw/${sha}/names.ts`);
    const rows = 5_000 *
      '<tr id="L0000"><td class="num"><a href="#L0000">0000</a></td><td></td></tr>'
        .length;
    assert(
      page.body.length < raw.body.length + rows + IDENTIFIER_LINKS_MAX * 45 + 64 * 1024,
      `the page is ${page.body.length} bytes for ${raw.body.length} bytes of code, ${links} links`,
    );
  }, {
    repositories: [{
      name: "org/big",
      publicRead: true,
      // 5,000 lines (one page) of 20 names each: 100,000 names.
      files: {
        "names.ts": Array.from(
          { length: 5_000 },
          () => "f(a, b, c, d, e, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u);",
        ).join("\n") + "\n",
      },
    }],
  }));

// Last: the uploaded index changes what the views of org/nav answer.
navCases.add(
  "navigation: with an uploaded SCIP index the views say Precise and show the index's roles",
  async ({ handle, sha }) => {
    const symbol = "scip-typescript npm fixture 1.0.0 src/`util.ts`/helper().";
    const bytes = encodeScip([
      { path: "src/util.ts", occurrences: [{ range: [0, 16, 22], symbol, roles: 1 }] },
      {
        path: "src/main.ts",
        occurrences: [
          { range: [0, 9, 15], symbol, roles: 2 },
          { range: [3, 22, 28], symbol },
        ],
      },
    ]);
    const uploaded = await inProcessFetch(handle)(
      `/sourcegraph/api/admin/v1/repo/scip?repo=org/nav&commit=${sha}`,
      { method: "POST", headers: { authorization: `Bearer ${WORLD_TOKEN}` }, body: bytes },
    );
    assertEquals(uploaded.status, 201, await uploaded.clone().text());
    const at = `${sha}/src/main.ts?line=4&column=24`;
    const references = await pageRequest(handle, `/sourcegraph/org/nav/-/references/${at}`);
    assertEquals(references.status, 200, references.body);
    assertIncludes(references.body, "Precise (SCIP test-indexer 1.2.3, index of");
    assertIncludes(references.body, '<span class="role role-definition">definition</span>');
    assertIncludes(references.body, '<span class="role role-import">import</span>');
    assertIncludes(references.body, '<span class="role role-reference">reference</span>');
    // Only the occurrences the index records: not the hostile file's, which it does not hold.
    assert(!references.body.includes("x.ts"), "a file the index does not name is listed");
    const definition = await pageRequest(handle, `/sourcegraph/org/nav/-/definition/${at}`);
    assertEquals(definition.status, 303);
    assertEquals(
      definition.headers.get("location"),
      `/sourcegraph/org/nav/-/blob/${sha}/src/util.ts#L1`,
    );
  },
);
