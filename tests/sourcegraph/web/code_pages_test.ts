import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import {
  type InProcessWorld,
  withInProcessService,
  type WorldRepository,
} from "../../support/in_process_service.ts";
import { pageRequest } from "../../support/page_requests.ts";
import { SharedCases } from "../../support/shared_cases.ts";
import {
  HOSTILE_MARKDOWN,
  pathologicalMarkdown,
  PIXEL_PNG,
} from "../../support/hostile_markdown.ts";

const REPOSITORIES: WorldRepository[] = [
  {
    name: "org/code",
    publicRead: true,
    files: {
      "README.md": HOSTILE_MARKDOWN,
      "src/main.c": [
        "#include <stdio.h>",
        "/* a comment",
        "   across lines */",
        'int main(void) { puts("</span><script>window.__pwned = 7</script>"); return 0; }',
        "",
      ].join("\n"),
      "docs/guide.md": "# Guide\n\nBack to [main](../src/main.c#L4) or [top](../).\n",
      "docs/logo.png": PIXEL_PNG,
      "docs/sub/readme.txt": "Plain <b>words</b>\n",
      "notes.txt": "return of the plain text\n",
    },
  },
];

function withCode(fn: (world: InProcessWorld & { sha: string }) => Promise<void>): Promise<void> {
  return withInProcessService(async (world) => {
    await fn({ ...world, sha: world.heads.get("org/code")! });
  }, { repositories: REPOSITORIES });
}

// The cases on one world of REPOSITORIES, in order.
const codeCases = new SharedCases<InProcessWorld & { sha: string }>();

Deno.test("code pages on one world of org/code", (t) =>
  withCode((world) => codeCases.run(t, world)));

// Script elements other than the pages' own script file.
function foreignScripts(html: string): string[] {
  return [...html.matchAll(/<script\b[^>]*>/gi)].map((m) => m[0]).filter((tag) =>
    tag !== '<script src="/sourcegraph/-/static/app.js" defer="">'
  );
}

// Attributes on tags that would run script or load from elsewhere.
function executable(html: string): string[] {
  const found: string[] = [];
  for (const tag of html.matchAll(/<[a-z][a-z0-9-]*(?:\s+[^\s"'=<>\/]+(?:="[^"]*")?)*\s*\/?>/gi)) {
    for (const attribute of tag[0].matchAll(/\s([^\s"'=<>\/]+)(?:="([^"]*)")?/g)) {
      const [, name, value = ""] = attribute;
      if (/^on/i.test(name)) found.push(tag[0]);
      if (/^(?:href|src)$/i.test(name) && /^\s*(?:javascript|data|vbscript):/i.test(value)) {
        found.push(tag[0]);
      }
    }
    if (/^<(?:svg|iframe|object|embed|math|style)\b/i.test(tag[0])) found.push(tag[0]);
  }
  return found;
}

codeCases.add(
  "code pages: a file is highlighted line by line; hostile strings stay text",
  async ({ handle, sha }) => {
    const page = await pageRequest(handle, `/sourcegraph/org/code/-/blob/${sha}/src/main.c`);
    assertEquals(page.status, 200);
    assertIncludes(page.body, '<span class="hljs-keyword">return</span>');
    // The comment spans lines 2 and 3: each line's row carries its own span.
    const row = (n: number) => new RegExp(`<tr id="L${n}">[\\s\\S]*?</tr>`).exec(page.body)![0];
    assertIncludes(row(2), '<span class="hljs-comment">/* a comment</span>');
    assertIncludes(row(3), '<span class="hljs-comment">   across lines */</span>');
    assertIncludes(row(4), "&lt;/span&gt;&lt;script&gt;window.__pwned = 7&lt;/script&gt;");
    assertEquals(foreignScripts(page.body), []);
    assertEquals(executable(page.body), []);
    // A path without a grammar is plain; the wrap toggle is offered to the script.
    const plain = await pageRequest(handle, `/sourcegraph/org/code/-/blob/${sha}/notes.txt`);
    assert(!plain.body.includes("hljs-"), "plain text highlighted");
    assertIncludes(
      plain.body,
      'data-wrap="true" aria-pressed="false" hidden="">Wrap lines</button>',
    );
  },
);

codeCases.add(
  "code pages: a folder shows its README rendered, links pinned, nothing executable",
  async ({ handle, sha }) => {
    const top = await pageRequest(handle, "/sourcegraph/org/code");
    assertEquals(top.status, 200);
    const readme = /<section class="readme">[\s\S]*<\/section>/.exec(top.body)![0];
    assertIncludes(readme, '<h2 id="user-content-install">Install</h2>');
    assertIncludes(readme, `href="/sourcegraph/org/code/-/blob/${sha}/docs/guide.md"`);
    assertIncludes(readme, `href="/sourcegraph/org/code/-/blob/${sha}/src/main.c#L2"`);
    assertIncludes(readme, `href="/sourcegraph/org/code/-/tree/${sha}/docs"`);
    assertIncludes(readme, `src="/sourcegraph/org/code/-/raw/${sha}/docs/logo.png"`);
    assertIncludes(readme, 'href="#user-content-install"');
    assertIncludes(readme, "&lt;script&gt;window.__pwned = 1&lt;/script&gt;");
    assertEquals(foreignScripts(top.body), []);
    assertEquals(executable(top.body), []);
    // A plain-text README is shown as text; a folder without one shows none.
    const sub = await pageRequest(handle, `/sourcegraph/org/code/-/tree/${sha}/docs/sub`);
    assertIncludes(sub.body, '<pre class="readme-text">Plain &lt;b&gt;words&lt;/b&gt;</pre>');
    const docs = await pageRequest(handle, `/sourcegraph/org/code/-/tree/${sha}/docs`);
    assert(!docs.body.includes('class="readme"'), "a README where there is none");
  },
);

codeCases.add(
  "code pages: Markdown files render, with their source (and line anchors) a toggle away",
  async ({ handle, sha }) => {
    const base = `/sourcegraph/org/code/-/blob/${sha}/docs/guide.md`;
    const rendered = await pageRequest(handle, base);
    assertIncludes(rendered.body, '<article class="markdown-body"><h1 id="user-content-guide">');
    assertIncludes(rendered.body, `href="/sourcegraph/org/code/-/blob/${sha}/src/main.c#L4"`);
    assertIncludes(rendered.body, `href="/sourcegraph/org/code/-/tree/${sha}"`);
    assertIncludes(rendered.body, `<a href="${base}?plain=1">Source</a>`);
    assert(!rendered.body.includes('id="L1"'), "line rows in the rendered view");
    const source = await pageRequest(handle, `${base}?plain=1`);
    assertIncludes(source.body, '<tr id="L1">');
    assertIncludes(source.body, '<span class="hljs-section"># Guide</span>');
    assertIncludes(source.body, `<a href="${base}?plain=1">Permalink</a>`);
    // Search results link a Markdown line to its source view.
    const search = await pageRequest(handle, "/sourcegraph/org/code/-/search?q=Guide");
    assertIncludes(search.body, `href="${base}?plain=1#L1"`);
  },
);

codeCases.add(
  "code pages: search results are highlighted and mark each match once",
  async ({ handle }) => {
    const page = await pageRequest(handle, "/sourcegraph/org/code/-/search?q=return%7Cputs");
    assertEquals(page.status, 200);
    assertIncludes(page.body, '<mark><span class="hljs-keyword">return</span></mark>');
    assertIncludes(page.body, `<mark><span class="hljs-built_in">puts</span></mark>`);
    // notes.txt has no grammar: marked, not highlighted.
    assertIncludes(page.body, "<td><mark>return</mark> of the plain text</td>");
    assertEquals([...page.body.matchAll(/<mark>/g)].length, 3);
    assertEquals(executable(page.body), []);
    const site = await pageRequest(handle, "/sourcegraph/-/search?q=puts");
    assertIncludes(site.body, '<span class="hljs-type">int</span>');
  },
);

Deno.test("code pages: files and folders whose names hold a backslash open from their listing", async () => {
  await withInProcessService(async ({ handle, heads }) => {
    const sha = heads.get("org/back")!;
    const top = await pageRequest(handle, `/sourcegraph/org/back/-/tree/${sha}`);
    assertEquals(top.status, 200);
    // The listing links each name with its backslash percent-encoded, and every link opens.
    const file = `/sourcegraph/org/back/-/blob/${sha}/a%5Cb.txt`;
    const folder = `/sourcegraph/org/back/-/tree/${sha}/dir%5Cx`;
    assertIncludes(top.body, `href="${file}"`);
    assertIncludes(top.body, `href="${folder}"`);
    const blob = await pageRequest(handle, file);
    assertEquals(blob.status, 200);
    assertIncludes(blob.body, "the file a\\b");
    const tree = await pageRequest(handle, folder);
    assertEquals(tree.status, 200);
    const inner = `/sourcegraph/org/back/-/blob/${sha}/dir%5Cx/c%5C%5Cd.md`;
    assertIncludes(tree.body, `href="${inner}"`);
    const rendered = await pageRequest(handle, inner);
    assertEquals(rendered.status, 200);
    assertIncludes(rendered.body, "<h1");
    const raw = await pageRequest(handle, `/sourcegraph/org/back/-/raw/${sha}/a%5Cb.txt`);
    assertEquals(raw.status, 200);
    assertEquals(raw.body, "the file a\\b\n");
    // Dot segments and encoded slashes still name nothing.
    for (const bad of ["..%5Ca.txt", "a%2Fb.txt", "%2E%2E"]) {
      const answer = await pageRequest(handle, `/sourcegraph/org/back/-/blob/${sha}/${bad}`);
      assertEquals(answer.status, 404, bad);
    }
  }, {
    repositories: [{
      name: "org/back",
      publicRead: true,
      files: { "a\\b.txt": "the file a\\b\n", "dir\\x/c\\\\d.md": "# Back\\slash\n" },
    }],
  });
});

Deno.test("code pages: Markdown past the renderer's time bound shows as plain source under a one-line notice", async () => {
  const { tables, nesting, emphasis } = pathologicalMarkdown();
  await withInProcessService(async ({ handle, heads }) => {
    const sha = heads.get("org/slow")!;
    const notice = (body: string) =>
      [...body.matchAll(/<p class="notice"><code>MARKDOWN_NOT_RENDERED<\/code> ([^<]*)<\/p>/g)]
        .map((m) => m[1]);
    const line = "took longer than 0.005 s to render: shown as its source";
    // The folder's README: the notice, then the text as it is.
    const tree = await pageRequest(handle, `/sourcegraph/org/slow/-/tree/${sha}`);
    assertEquals(tree.status, 200);
    assertEquals(notice(tree.body), [line]);
    assertIncludes(tree.body, '<pre class="readme-text">|a|a|a|');
    assert(!tree.body.includes('<article class="markdown-body">'), "the README was rendered");
    for (const path of ["README.md", "docs/nesting.md", "docs/emphasis.md"]) {
      for (let reload = 0; reload < 2; reload++) {
        const blob = await pageRequest(handle, `/sourcegraph/org/slow/-/blob/${sha}/${path}`);
        assertEquals(blob.status, 200, path);
        assertEquals(notice(blob.body), [line], path);
        assertIncludes(blob.body, '<table class="code">');
        assert(!blob.body.includes("hljs-"), `${path} was highlighted`);
        assert(!blob.body.includes('<article class="markdown-body">'), `${path} was rendered`);
      }
    }
    // The source view asked for is the source view, no notice.
    const plain = await pageRequest(
      handle,
      `/sourcegraph/org/slow/-/blob/${sha}/README.md?plain=1`,
    );
    assertEquals(notice(plain.body), []);
  }, {
    markdown: { timeoutMs: 5 },
    repositories: [{
      name: "org/slow",
      publicRead: true,
      files: { "README.md": tables, "docs/nesting.md": nesting, "docs/emphasis.md": emphasis },
    }],
  });
});
