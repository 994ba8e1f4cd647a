import {
  type LinkTarget,
  renderMarkdown,
} from "../../../../sourcegraph/web/code/markdown_render.ts";
import { assert, assertEquals, assertIncludes } from "../../../support/assert.ts";

// Targets spelled out, so a test reads where each link went.
function resolve(target: LinkTarget): string {
  const fragment = target.kind === "page" && target.fragment !== null ? `#${target.fragment}` : "";
  return `/pinned/${target.kind}/${target.path}${fragment}`;
}

function render(source: string, folder = "docs"): string {
  return renderMarkdown(source, { folder, resolve });
}

// Every href and src value in `html`.
function urls(html: string): string[] {
  return [...html.matchAll(/\s(?:href|src)="([^"]*)"/g)].map((match) => match[1]);
}

Deno.test("markdown: relative links and images are pinned; fragments follow heading ids", () => {
  const html = render([
    "# Getting Started",
    "## Getting Started",
    "[guide](guide.md) [up](../README.md#Install) [top](/src/main.c#L3-L5) [dir](api/)",
    "[here](#getting-started) [q](x.md?plain=1) [enc](a%20b.md) [out](../../../etc/passwd)",
    "![logo](img/logo.png) ![far](https://example.org/badge.svg)",
    "<https://example.org/x> mailto:a@example.org",
  ].join("\n"));
  assertIncludes(html, '<h1 id="user-content-getting-started">');
  assertIncludes(html, '<h2 id="user-content-getting-started-1">');
  assertEquals(urls(html), [
    "/pinned/page/docs/guide.md",
    "/pinned/page/README.md#user-content-install",
    "/pinned/page/src/main.c#L3-L5",
    "/pinned/folder/docs/api",
    "#user-content-getting-started",
    "/pinned/page/docs/x.md",
    "/pinned/page/docs/a b.md",
    "/pinned/image/docs/img/logo.png",
    "https://example.org/badge.svg",
    "https://example.org/x",
    "mailto:a@example.org",
  ]);
  // A link out of the repository keeps its text, not its target.
  assertIncludes(html, "<a>out</a>");
  // An image elsewhere is a link to it, never loaded by the page.
  assertIncludes(
    html,
    '<a href="https://example.org/badge.svg" rel="nofollow noopener noreferrer">far</a>',
  );
  assertEquals(render("[a](b.md)", ""), '<p><a href="/pinned/page/b.md">a</a></p>\n');
});

Deno.test("markdown: hostile documents render nothing executable", () => {
  const hostile = [
    "<script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned = 2">',
    '<svg onload="window.__pwned = 3"><circle/></svg>',
    "<!-- --><script>window.__pwned = 4</script><!-- -->",
    "<!--",
    "<script>window.__pwned = 5</script>",
    "-->",
    "[a](javascript:window.__pwned=6) [b](JaVaScRiPt:alert(1)) [c](jav&#x61;script:alert(1))",
    "[d](java\tscript:alert(1)) [e](vbscript:msgbox) [f](data:text/html,<script>alert(1)</script>)",
    "[g](  javascript:alert(1)) [h](file:///etc/passwd) [i](&#106;avascript:alert(1))",
    "![j](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+) ![k](javascript:alert(1))",
    "[l]: javascript:alert(1)",
    "[l] <javascript:alert(1)>",
    '<a href="javascript:alert(1)">m</a> <iframe src="https://evil.example"></iframe>',
    '```html" onmouseover="alert(1)',
    "<script>alert(1)</script>",
    "```",
    "<style>body{display:none}</style> <object data=x></object> <embed src=x>",
    '[n](https://ok.example "title\\" onmouseover=\\"alert(1)")',
    "<details open ontoggle=alert(1)>",
    "`<script>`",
  ].join("\n\n");
  const html = render(hostile);
  for (const tag of ["script", "svg", "iframe", "object", "embed", "style", "details", "math"]) {
    assert(!new RegExp(`<${tag}[\\s>/]`, "i").test(html), `a <${tag}> element in ${html}`);
  }
  // No attribute named on…: every tag's attributes are href, src, alt, id, class, rel, loading, title.
  for (const tag of html.matchAll(/<[a-z][a-z0-9]*((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*\/?>/gi)) {
    for (const attribute of tag[1].matchAll(/\s+([a-z-]+)(?:="[^"]*")?/gi)) {
      assert(
        ["href", "src", "alt", "id", "class", "rel", "loading", "title"].includes(attribute[1]),
        `attribute ${attribute[1]} in ${tag[0]}`,
      );
    }
  }
  for (const url of urls(html)) {
    assert(url.startsWith("/pinned/") || url.startsWith("https://") || url.startsWith("#"), url);
  }
  // A `<` never opens a tag the renderer did not make.
  assertIncludes(html, "&lt;script&gt;window.__pwned = 1&lt;/script&gt;");
  assertIncludes(html, 'class="language-html&quot;"');
});

Deno.test("markdown: deep nesting and huge input stay linear and bounded", () => {
  const nested = ">".repeat(50_000) + " x\n" + "[".repeat(50_000) + "\n" + "*".repeat(50_000);
  const html = render(nested);
  assert(html.length < nested.length * 20, `${html.length} characters`);
  const list = Array.from({ length: 20_000 }, (_, i) => `${" ".repeat(i % 40)}- item ${i}`).join(
    "\n",
  );
  assertIncludes(render(list), "item 19999");
});
