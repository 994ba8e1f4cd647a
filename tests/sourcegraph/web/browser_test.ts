/// <reference lib="dom" />
// Functions given to page.evaluate run in the browser, hence the DOM types.
import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import {
  type BrowserCase,
  chromiumPath,
  runBrowserCases,
  screenshotsFolder,
} from "../../support/browser.ts";
import { SharedCases } from "../../support/shared_cases.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { pathologicalMarkdown } from "../../support/hostile_markdown.ts";
import { type RunningService, startService } from "../../support/sourcegraph_service.ts";

const CHROMIUM = chromiumPath();
const TOKEN = "b".repeat(40);

/** The service every case uses: `local/site` (hostile and awkward content) and `local/kinds`. */
interface Site {
  service: RunningService;
  /** The commit of `local/site` (its subject hostile). */
  siteSha: string;
  /** The commit of `local/kinds` (a file of each kind the pages show). */
  kindsSha: string;
}

// The cases below, each in a browser context of its own, in one Chromium, on one service.
const browserCases = new SharedCases<BrowserCase<Site>>();

Deno.test({
  name: "pages in Chromium, one browser and one service for every case",
  ignore: CHROMIUM === null,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: (t) =>
    withSite((world) => runBrowserCases(t, browserCases, { executablePath: CHROMIUM!, world })),
});

/** Runs `fn` with the service of both repositories (the token signs in); stopped and removed after. */
async function withSite(fn: (site: Site) => Promise<void>): Promise<void> {
  const parent = await tempDir("sg-browser-");
  try {
    const site = await createRepo(SITE_FILES, { parent, name: "site" });
    await site.git("commit", "-q", "--amend", "-m", `<img src=x onerror="window.__pwned=4">`);
    const kinds = await createRepo(KINDS_FILES, { parent, name: "kinds" });
    const service = await startService(parent, { SOURCEGRAPH_API_TOKEN: TOKEN }, {
      repositories: [site.path, kinds.path],
    });
    try {
      await fn({
        service,
        siteSha: await site.git("rev-parse", "HEAD"),
        kindsSha: await kinds.git("rev-parse", "HEAD"),
      });
    } finally {
      await service.stop();
    }
  } finally {
    await removeDir(parent);
  }
}

const SITE_FILES: Record<string, string> = {
  "a.txt": "one\ntwo\nthree\nfour\nfive\nsix\n",
  "hostile.html": `<img src=x onerror="window.__pwned = 1"><script>window.__pwned = 2</script>\n`,
  "<svg onload=window.__pwned=3>.txt": "name\n",
  "wide.txt": `wide ${"w".repeat(3000)}\n`,
  "many.txt": Array.from({ length: 300 }, (_, i) => `line ${i + 1}`).join("\n") + "\n",
  [`${"deep_folder_name/".repeat(6)}a_rather_long_file_name_for_a_phone.txt`]: "wide too\n",
};

const KINDS_FILES: Record<string, string> = {
  "README.md": `# Configuration reference for the repository browser\n\n${
    "A long paragraph of words. ".repeat(40)
  }\n\n| ${"a wide table column | ".repeat(12)}\n|${"---|".repeat(12)}\n\n\`\`\`sh\n${
    "a-long-command --with-flags ".repeat(20)
  }\n\`\`\`\n`,
  // Tables no worker heap renders: shown as source under the one-line notice.
  "slow/README.md": pathologicalMarkdown().tables,
  "back\\slash/notes\\2026.md": "# Notes\n\nA file whose names hold backslashes.\n",
  "src/deep/folder/with_a_rather_long_name/parse_config.ts":
    `export function parseConfig(text: string): string {\n  return text; // ${
      "x".repeat(400)
    }\n}\n`,
  // Matches far apart: context rows around each, separators between them.
  "src/spaced.ts": Array.from(
    { length: 30 },
    (_, i) => i % 12 === 0 ? `const needle${i} = "${"y".repeat(300)}";` : `// line ${i + 1}`,
  ).join("\n") + "\n",
};

browserCases.add(
  "pages in Chromium: line ranges, copy buttons, sign-in, no script from content, no CSP breakage",
  async ({ context, world: { service, siteSha: sha } }) => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error}`));
    page.on("console", (message) => {
      if (message.text().includes("Content Security Policy")) problems.push(message.text());
    });
    const base = `${service.url}/sourcegraph`;
    await page.goto(`${base}/local/site/-/blob/${sha}/a.txt#L2-L4`);
    await page.waitForFunction(() => document.querySelectorAll("tr.selected").length > 0);
    const selected = () => page.$$eval("tr.selected", (rows) => rows.map((row) => row.id));
    assertEquals(await selected(), ["L2", "L3", "L4"]);
    await page.keyboard.down("Shift");
    await page.click('a[href="#L6"]');
    await page.keyboard.up("Shift");
    await page.waitForFunction(() => location.hash === "#L2-L6");
    assertEquals(await selected(), ["L2", "L3", "L4", "L5", "L6"]);
    await page.click('a[href="#L5"]');
    await page.waitForFunction(() => location.hash === "#L5");
    assertEquals(await selected(), ["L5"]);
    // Content, names and subjects never run as script.
    for (
      const path of [
        "/",
        "/local/site",
        `/local/site/-/blob/${sha}/hostile.html`,
        `/local/site/-/blob/${sha}/${encodeURIComponent("<svg onload=window.__pwned=3>.txt")}`,
        "/local/site/-/versions",
        "/local/site/-/search?q=pwned",
      ]
    ) {
      await page.goto(`${base}${path}`);
      assertEquals(
        await page.evaluate(() => (window as { __pwned?: number }).__pwned),
        undefined,
      );
    }
    // The search page shows the hostile line as text, its match marked.
    assertIncludes(await page.evaluate(() => document.body.innerText), "window.__pwned = 1");
    assertEquals(await page.$$eval("mark", (marks) => marks[0]?.textContent), "pwned");
    // A long line scrolls inside its code box: the page itself never scrolls sideways.
    for (const width of [1280, 390]) {
      await page.setViewport({ width, height: 800 });
      for (const path of [`/local/site/-/blob/${sha}/wide.txt`, "/local/site/-/search?q=wide"]) {
        await page.goto(`${base}${path}`);
        const [scrolled, inner] = await page.evaluate(() => [
          document.scrollingElement!.scrollWidth,
          innerWidth,
        ]);
        assert(scrolled <= inner, `${path} at ${width}: ${scrolled} > ${inner}`);
      }
    }
    // The raw file of hostile HTML is text in a sandbox: shown, never run.
    await page.goto(`${base}/local/site/-/raw/${sha}/hostile.html`);
    assertEquals(await page.evaluate(() => (window as { __pwned?: number }).__pwned), undefined);
    assertIncludes(await page.evaluate(() => document.body.innerText), "<script>");
    // Copy buttons copy the generated configuration.
    await context.overridePermissions(service.url, [
      "clipboard-read",
      "clipboard-write",
      "clipboard-sanitized-write",
    ]);
    await page.goto(`${base}/-/connect`);
    assertEquals((await page.$$("button.copy")).length, 5);
    await page.click("button.copy");
    await page.waitForFunction(() =>
      document.querySelector("button.copy")?.textContent === "Copied"
    );
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assertEquals(JSON.parse(copied).mcpServers.sourcegraph.url, `${base}/mcp?plugins=auto`);
    // A file page's header: copy path, and the citation of the selected range.
    await page.setViewport({ width: 390, height: 600 });
    await page.goto(`${base}/local/site/-/blob/${sha}/many.txt`);
    assert(await page.$eval("[data-citation]", (button) => (button as HTMLElement).hidden));
    await page.click("[data-copy-text]");
    await page.waitForFunction(() =>
      document.querySelector("[data-copy-text]")?.textContent === "Copied"
    );
    assertEquals(await page.evaluate(() => navigator.clipboard.readText()), "many.txt");
    await page.click('a[href="#L120"]');
    await page.keyboard.down("Shift");
    await page.click('a[href="#L122"]');
    await page.keyboard.up("Shift");
    await page.waitForFunction(() => location.hash === "#L120-L122");
    await page.click("[data-citation]");
    await page.waitForFunction(() =>
      document.querySelector("[data-citation]")?.textContent === "Copied"
    );
    assertEquals(
      await page.evaluate(() => navigator.clipboard.readText()),
      `local/site@${sha} many.txt#L120-L122\n${base}/local/site/-/blob/${sha}/many.txt#L120-L122`,
    );
    // Scrolled to those lines, the header (path and actions) is still at the top of the window.
    assertEquals(
      await page.$eval(
        ".file-header",
        (header) => Math.round(header.getBoundingClientRect().top),
      ),
      0,
    );
    assert(await page.evaluate(() => scrollY > 1000), "the page scrolled to the range");
    // Signing in through the form: a session cookie the page's script cannot read.
    await page.goto(`${base}/-/sign-in`);
    await page.type('input[name="secret"]', TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('main button[type="submit"]')]);
    assertEquals(page.url(), `${base}/`);
    assertIncludes(await page.content(), "service token");
    const session = (await context.cookies()).find((cookie) => cookie.name === "sg_session")!;
    assertEquals([session.httpOnly, session.sameSite, session.path], [
      true,
      "Strict",
      "/sourcegraph",
    ]);
    assert(!(await page.evaluate(() => document.cookie)).includes("sg_session"));
    await Promise.all([
      page.waitForNavigation(),
      page.click('header form button[type="submit"]'),
    ]);
    assertIncludes(await page.content(), "Sign in");
    assertEquals(problems, []);
    // Without JavaScript the pages still work and #L3 still marks its line.
    const noScript = await context.newPage();
    await noScript.setJavaScriptEnabled(false);
    await noScript.goto(`${base}/`);
    assertIncludes(await noScript.content(), "local/site");
    await noScript.goto(`${base}/local/site/-/blob/${sha}/a.txt#L3`);
    const background = (id: string) =>
      noScript.$eval(`#${id}`, (row) => getComputedStyle(row).backgroundColor);
    assert((await background("L3")) !== (await background("L1")), "the :target line is marked");
    await noScript.goto(`${base}/local/site/-/search?q=three`);
    await Promise.all([noScript.waitForNavigation(), noScript.click(`a[href$="a.txt#L3"]`)]);
    assertEquals(new URL(noScript.url()).pathname, `/sourcegraph/local/site/-/blob/${sha}/a.txt`);
  },
);

browserCases.add(
  "pages in Chromium: the page's own script and style load under the policy",
  async ({ context, world: { service } }) => {
    const page = await context.newPage();
    const failed: string[] = [];
    page.on("requestfailed", (request) => failed.push(request.url()));
    page.on("response", (response) => {
      if (response.status() >= 400) {
        failed.push(`${response.status()} ${response.url()}`);
      }
    });
    await page.goto(`${service.url}/sourcegraph/`);
    const margin = await page.$eval("body", (body) => getComputedStyle(body).margin);
    assertEquals(margin, "0px", "the style sheet applied");
    assertEquals(failed, []);
  },
);

/** Per page kind, the boxes whose content must fit their own width (no inner scrolling). */
const BOXES_THAT_FIT: Record<string, string[]> = {
  home: ["main table"],
  connect: ["pre[data-copy]"],
};

/** The selectors of `selectors` with an element whose content is wider than its box. */
async function boxesWiderThanThemselves(
  page: import("puppeteer-core").Page,
  selectors: string[],
): Promise<string[]> {
  const wide: string[] = [];
  for (const selector of selectors) {
    const sizes = await page.$$eval(
      selector,
      (boxes) => boxes.map((box) => [box.scrollWidth, box.clientWidth]),
    );
    assert(sizes.length > 0, `${selector} is on the page`);
    for (const [scroll, client] of sizes) {
      if (scroll > client) wide.push(`${selector} ${scroll} > ${client}`);
    }
  }
  return wide;
}

/** The words of an element's text that one line does not hold whole (cut mid-word). */
function wordsCutAcrossLines(element: Element): string[] {
  const cut: string[] = [];
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const text = node.textContent ?? "";
    for (const word of text.matchAll(/\S+/g)) {
      const range = document.createRange();
      range.setStart(node, word.index!);
      range.setEnd(node, word.index! + word[0].length);
      const lines = new Set(
        [...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)),
      );
      if (lines.size > 1) cut.push(word[0]);
    }
  }
  return cut;
}

browserCases.add(
  "pages in Chromium: every page kind at 1280 and 390 px, none scrolls sideways",
  async ({ context, world: { service, kindsSha: sha } }) => {
    // Screenshots only where a person asked to look (SOURCEGRAPH_SCREENSHOTS).
    const shots = await screenshotsFolder();
    const page = await context.newPage();
    const base = `${service.url}/sourcegraph`;
    const kinds: [string, string][] = [
      ["home", "/"],
      ["site-search", "/-/search?q=parseConfig"],
      ["files", "/local/kinds"],
      ["folder", `/local/kinds/-/tree/${sha}/src/deep`],
      [
        "file",
        `/local/kinds/-/blob/${sha}/src/deep/folder/with_a_rather_long_name/parse_config.ts#L2`,
      ],
      ["markdown", `/local/kinds/-/blob/${sha}/README.md`],
      ["markdown-source", `/local/kinds/-/blob/${sha}/README.md?plain=1`],
      ["markdown-not-rendered", `/local/kinds/-/blob/${sha}/slow/README.md`],
      ["readme-not-rendered", `/local/kinds/-/tree/${sha}/slow`],
      ["backslash-name", `/local/kinds/-/blob/${sha}/back%5Cslash/notes%5C2026.md`],
      ["versions", "/local/kinds/-/versions"],
      ["search", "/local/kinds/-/search?q=parseConfig"],
      ["search-context", "/local/kinds/-/search?q=needle&context=2"],
      ["site-search-options", "/-/search?q=NEEDLE&case=1&glob=src/**"],
      ["symbols", "/local/kinds/-/symbols?q=parseConfig"],
      ["symbols-no-query", "/local/kinds/-/symbols"],
      ["plugins", "/local/kinds/-/plugins"],
      ["connect", "/-/connect"],
      ["mcp-endpoint", "/mcp"],
      ["sign-in", "/-/sign-in"],
      ["not-found", "/local/nothing-here"],
      [
        "missing-file",
        `/local/kinds/-/blob/${sha}/src/deep/folder/with_a_rather_long_name/parse_conifg.ts`,
      ],
    ];
    const wide: string[] = [];
    for (const width of [1280, 390]) {
      await page.setViewport({ width, height: 900 });
      for (const [kind, path] of kinds) {
        await page.goto(`${base}${path}`);
        // 800 KB of source is too tall for one capture: its first screen shows the notice.
        const fullPage = !kind.endsWith("-not-rendered");
        if (shots) await page.screenshot({ path: `${shots}/${kind}-${width}.png`, fullPage });
        const [scrolled, inner] = await page.evaluate(() => [
          document.scrollingElement!.scrollWidth,
          innerWidth,
        ]);
        if (scrolled > inner) wide.push(`${kind} at ${width}: ${scrolled} px`);
        if (kind.endsWith("-not-rendered")) {
          // Past the time bound, or the heap's when V8 reports it first.
          const notice = await page.$eval("p.notice", (p) => p.textContent ?? "");
          assert(
            /^MARKDOWN_NOT_RENDERED (?:took longer than 2 s|needed more than 64 MiB) to render: shown as its source$/
              .test(notice),
            notice,
          );
        }
        const clipped = await boxesWiderThanThemselves(page, BOXES_THAT_FIT[kind] ?? []);
        if (clipped.length > 0) wide.push(`${kind} at ${width}: ${clipped.join(", ")}`);
        if (kind === "files") {
          const cut = await page.$eval(".readme h1", wordsCutAcrossLines);
          if (cut.length > 0) {
            wide.push(`files at ${width}: README heading cuts ${cut.join(", ")}`);
          }
        }
        if (kind === "missing-file") {
          const nearest = await page.$$eval(
            "ul.nearest a",
            (links) => links.map((link) => [link.textContent, link.getAttribute("href")]),
          );
          const path = "src/deep/folder/with_a_rather_long_name/parse_config.ts";
          assertEquals(nearest[0], [path, `/sourcegraph/local/kinds/-/blob/${sha}/${path}`]);
        }
        if (kind === "symbols-no-query") {
          assertIncludes(
            await page.$eval(".empty-state", (box) => box.textContent ?? ""),
            "Find where a function, class, type, constant or other name is defined",
          );
        }
        if (kind === "mcp-endpoint") {
          assertEquals(
            await page.$eval("main h1", (h) => h.textContent),
            "This is an MCP endpoint",
          );
          assertEquals(
            await page.$$eval('main a[href="/sourcegraph/-/connect"]', (a) => a.length),
            1,
          );
        }
        if (kind === "search-context") {
          // Lines 1, 13 and 25 match; two lines each side; a separator between the groups.
          const rows = await page.$$eval(
            "table.code tr",
            (trs) => trs.map((tr) => tr.className || "match"),
          );
          assertEquals(rows.filter((row) => row === "gap").length, 2);
          assertEquals(rows.filter((row) => row === "match").length, 3);
          assertEquals(rows.filter((row) => row === "context").length, 10);
          const dimmed = await page.$eval(
            "table.code tr.context td",
            (td) => Number(getComputedStyle(td).opacity),
          );
          assert(dimmed < 1, `context rows are dimmed (opacity ${dimmed})`);
        }
        if (kind === "backslash-name") {
          assertEquals(
            await page.$eval("article.markdown-body h1", (h) => h.textContent),
            "Notes",
          );
        }
      }
    }
    assertEquals(wide, []);
    if (shots) {
      console.log(`screenshots of ${kinds.length} page kinds at 1280 and 390 px: ${shots}`);
      assert((await Array.fromAsync(Deno.readDir(shots))).length >= kinds.length * 2, shots);
    }
  },
);
