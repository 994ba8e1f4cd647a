/// <reference lib="dom" />
// Functions given to page.evaluate run in the browser, hence the DOM types.
/**
 * The pages in a real Chromium, at 1280 and 390 px where layout is the
 * property, and OAuth end to end: every case in a browser context of its
 * own, all in one Chromium (a launch costs a processor-second or two, more
 * than most cases). The page cases share one service of five repositories
 * (a service start costs about one): `local/site` holds hostile content,
 * code to highlight and a hostile README (one repository, so one index build
 * fewer); `local/kinds` a file of each kind the pages show; `local/history`
 * a rename and a hostile commit; `local/nav` what code navigation links;
 * `local/project` is synced by its Sync now button (over HTTP, no browser).
 * Screenshots only where a person asked to look (SOURCEGRAPH_SCREENSHOTS).
 *
 * The OAuth cases share one service with public reads off: the MCP SDK's own
 * client-side OAuth (`auth()` with an OAuthClientProvider) against it over
 * loopback HTTP. The SDK discovers the metadata from the 401 challenge,
 * registers itself, and Chromium signs in and approves on the consent page;
 * the SDK then exchanges the code, lists the tools and reads a file. A token
 * minted for the service reached under another name (another resource) is
 * refused. The same with a client named by the https URL of its metadata
 * document (CIMD), served on loopback with a certificate made for the test.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Browser, BrowserContext, Page } from "puppeteer-core";
import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import {
  type BrowserCase,
  chromiumPath,
  launchBrowser,
  loadAtEachWidth,
  runBrowserCases,
  screenshotPages,
  screenshotsFolder,
  scrollsSideways,
} from "../../support/browser.ts";
import { SharedCases } from "../../support/shared_cases.ts";
import { createRepo, removeDir, tempDir, type TestRepo } from "../../support/git_repo.ts";
import { hiddenField, overHttp, pageRequest, signIn } from "../../support/page_requests.ts";
import {
  HOSTILE_MARKDOWN,
  pathologicalMarkdown,
  PIXEL_PNG,
} from "../../support/hostile_markdown.ts";
import { withCertificate } from "../../support/test_certificate.ts";
import { type RunningService, startService } from "../../support/sourcegraph_service.ts";

const CHROMIUM = chromiumPath();
const TOKEN = "b".repeat(40);
const OAUTH_TOKEN = "o".repeat(40);

/** The service every page case uses, and the commits of its repositories. */
interface Site {
  service: RunningService;
  /** The commit of `local/site` (its subject hostile; its README and code too). */
  siteSha: string;
  /** The commit of `local/kinds` (a file of each kind the pages show). */
  kindsSha: string;
  /** The commits of `local/history`, oldest first: the first, the rename, the hostile one. */
  history: { first: string; renamed: string; sha: string };
  /** The commit of `local/nav`. */
  navSha: string;
  /** `local/project`, which only its Sync now button syncs (the local check waits an hour). */
  project: TestRepo;
}

// The page cases below, each in a browser context of its own, on one service.
const browserCases = new SharedCases<BrowserCase<Site>>();
// The cases over HTTP alone on the same service: no browser context to make.
const httpCases = new SharedCases<Site>();

Deno.test({
  name: "pages and OAuth in Chromium, one browser for every case",
  ignore: CHROMIUM === null,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const browser = await launchBrowser(CHROMIUM!);
    try {
      // Steps: a failing one does not keep the other from running.
      await t.step({
        name: "pages, one service for every case",
        sanitizeResources: false,
        sanitizeOps: false,
        fn: (t) =>
          withSite(async (world) => {
            await runBrowserCases(t, browserCases, { browser, world });
            await httpCases.run(t, world);
          }),
      });
      await t.step({
        name: "OAuth end to end, one service for every case",
        sanitizeResources: false,
        sanitizeOps: false,
        fn: (t) => withOAuthWorld(browser, (world) => oauthCases.run(t, world)),
      });
    } finally {
      await browser.close();
    }
  },
});

/** Runs `fn` with the service of every repository (the token signs in); stopped and removed after. */
async function withSite(fn: (site: Site) => Promise<void>): Promise<void> {
  const parent = await tempDir("sg-browser-");
  try {
    const site = await createRepo({ ...SITE_FILES, ...CODE_FILES }, { parent, name: "site" });
    await site.git("commit", "-q", "--amend", "-m", `<img src=x onerror="window.__pwned=4">`);
    const kinds = await createRepo({}, { parent, name: "kinds" });
    await kinds.write(KINDS_FILES);
    const nav = await createRepo({}, { parent, name: "nav" });
    await nav.write(NAV_FILES);
    const world = {
      siteSha: await site.git("rev-parse", "HEAD"),
      kindsSha: await kinds.commit("initial"),
      navSha: await nav.commit("initial"),
      history: await createHistory(parent),
      project: await createRepo({ "a.txt": "one\n" }, { parent, name: "project" }),
    };
    // The local check waits an hour: no repository changes but the one Sync now syncs.
    const service = await startService(parent, {
      SOURCEGRAPH_API_TOKEN: TOKEN,
      SOURCEGRAPH_LOCAL_CHECK: "1h",
    }, {
      repositories: ["site", "kinds", "history", "nav", "project"].map((name) =>
        `${parent}/${name}`
      ),
    });
    try {
      await fn({ service, ...world });
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

// Beside SITE_FILES in `local/site`: highlighting, a hostile README and what it links.
const CODE_FILES: Record<string, string | Uint8Array> = {
  "README.md": HOSTILE_MARKDOWN,
  "docs/guide.md": "# Guide\n\nline two\n\nline four\n",
  "docs/logo.png": PIXEL_PNG,
  "src/main.c": `int main(void) { return 0; } /* ${"wide ".repeat(600)}*/\n`,
};

const LONG_NAV = "src/deep/folder/with_a_rather_long_name/parse_configuration_files.ts";
// A member of a receiver of no evident type: the symbol index's two definitions are listed.
const CALL = "export const n = (globalThis as any).lib.twice();\n";
const HOSTILE_NAV = `src/<img src=x onerror="window.__pwned=1">.ts`;

const NAV_FILES: Record<string, string> = {
  [LONG_NAV]: [
    'import { trimmed } from "../../../util.ts";',
    "",
    "/** Reads a configuration. */",
    "export function parseConfiguration(text: string): string {",
    `  return trimmed(text); // ${"a long comment ".repeat(30)}`,
    "}",
    "",
    "export class ConfigurationReader {",
    "  read(text: string): string {",
    "    return parseConfiguration(text);",
    "  }",
    "}",
    "",
  ].join("\n"),
  "src/util.ts": "export function trimmed(text: string): string {\n  return text.trim();\n}\n",
  "src/a.ts": "export function twice(): number {\n  return 1;\n}\n",
  "src/b.ts": "export function twice(): number {\n  return 2;\n}\n",
  "src/call.ts": CALL,
  "src/use.ts": 'import { trimmed } from "./util.ts";\nexport const t = trimmed(" x ");\n',
  [HOSTILE_NAV]: 'import { trimmed } from "./util.ts";\nexport const pwned = trimmed("");\n',
};

const LONG_HISTORY = "src/deep/folder/with_a_rather_long_name/parse_config.ts";

/**
 * `local/history` below `parent`: a first commit, one that renames (and edits) the notes
 * into a longer folder, and one of a hostile author, subject and body; their ids.
 */
async function createHistory(parent: string): Promise<Site["history"]> {
  const notes = Array.from({ length: 12 }, (_, i) => `- line ${i + 1}\n`).join("");
  const repo = await createRepo({}, { parent, name: "history" });
  await repo.write({
    [LONG_HISTORY]: `export function parseConfig(text: string): string {\n  return text;\n}\n`,
    "a.txt": "one\ntwo\nthree\n",
    "docs/notes.md": notes,
  });
  const first = await repo.commit("initial");
  await Deno.mkdir(`${repo.path}/docs/moved_to_a_longer_folder_name`);
  await repo.git("mv", "docs/notes.md", "docs/moved_to_a_longer_folder_name/notes_renamed.md");
  await repo.write({
    "docs/moved_to_a_longer_folder_name/notes_renamed.md": notes.replace("line 3", "line three"),
  });
  const renamed = await repo.commit("Move the notes");
  await repo.write({
    [LONG_HISTORY]:
      `export function parseConfig(text: string): string {\n  return text.trim(); // ${
        "x".repeat(400)
      }\n}\n`,
    "a.txt": "one\n2\nthree\n",
  });
  await repo.git("add", "-A");
  await repo.git(
    "commit",
    "-q",
    `--author=Eve" onmouseover="window.__pwned=1" ${"Long".repeat(12)} <e@example.invalid>`,
    "-m",
    `<img src=x onerror="window.__pwned=2"> ${"a rather long subject ".repeat(8)}`,
    "-m",
    `<script>window.__pwned = 3</script>\n${"body ".repeat(200)}`,
  );
  return { first, renamed, sha: await repo.git("rev-parse", "HEAD") };
}

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
    for (const path of [`/local/site/-/blob/${sha}/wide.txt`, "/local/site/-/search?q=wide"]) {
      await loadAtEachWidth(page, `${base}${path}`, {
        height: 800,
        check: async (width) =>
          assertEquals(await scrollsSideways(page), null, `${path} at ${width}`),
      });
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
    // Without JavaScript the pages still work and #L3 still marks its line (the same page
    // with scripts off: a second tab costs Chromium more than the checks).
    const noScript = page;
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
  "pages in Chromium: every page kind at 1280 and 390 px, none scrolls sideways, the page's own script and style load under the policy",
  async ({ context, world: { service, kindsSha: sha } }) => {
    // Screenshots only where a person asked to look (SOURCEGRAPH_SCREENSHOTS).
    const shots = await screenshotsFolder();
    const page = await context.newPage();
    // Every request of the pages but the pages themselves (some are 404 pages) succeeds.
    const failed: string[] = [];
    page.on("requestfailed", (request) => failed.push(request.url()));
    page.on("response", (response) => {
      if (response.status() >= 400 && !response.request().isNavigationRequest()) {
        failed.push(`${response.status()} ${response.url()}`);
      }
    });
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
    for (const [kind, path] of kinds) {
      await loadAtEachWidth(page, `${base}${path}`, {
        check: async (width) => {
          // 800 KB of source is too tall for one capture: its first screen shows the notice.
          const fullPage = !kind.endsWith("-not-rendered");
          if (shots) await page.screenshot({ path: `${shots}/${kind}-${width}.png`, fullPage });
          const scrolls = await scrollsSideways(page);
          if (scrolls) wide.push(`${kind} at ${width}: ${scrolls}`);
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
          if (kind === "home") {
            const margin = await page.$eval("body", (body) => getComputedStyle(body).margin);
            assertEquals(margin, "0px", "the style sheet applied");
          }
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
        },
      });
    }
    assertEquals(wide, []);
    assertEquals(failed, []);
    if (shots) {
      console.log(`screenshots of ${kinds.length} page kinds at 1280 and 390 px: ${shots}`);
      assert((await Array.fromAsync(Deno.readDir(shots))).length >= kinds.length * 2, shots);
    }
  },
);

browserCases.add(
  "pages in Chromium: highlighting in light and dark, rendered Markdown runs nothing, images load, lines wrap on request",
  async ({ context, world: { service, siteSha: sha } }) => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error}`));
    page.on("console", (message) => {
      if (message.text().includes("Content Security Policy")) problems.push(message.text());
    });
    const base = `${service.url}/sourcegraph/local/site`;
    const pwned = () => page.evaluate(() => (window as { __pwned?: number }).__pwned);
    // Keywords are coloured by the style sheet, differently in each colour scheme (one load:
    // the style sheet's media queries follow the emulated scheme as it changes).
    const colours: string[] = [];
    await page.goto(`${base}/-/blob/${sha}/src/main.c`);
    for (const scheme of ["light", "dark"]) {
      await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
      const [keyword, text] = await page.$eval("tr#L1 td:last-child", (cell) => [
        getComputedStyle(cell.querySelector(".hljs-keyword")!).color,
        getComputedStyle(cell).color,
      ]);
      assert(keyword !== text, `${scheme}: keyword ${keyword}, text ${text}`);
      colours.push(keyword);
    }
    assert(colours[0] !== colours[1], `the same keyword colour in both schemes: ${colours[0]}`);
    // The long line scrolls in its box; with "Wrap lines" it wraps and nothing scrolls.
    const code = () => page.$eval("table.code", (table) => [table.scrollWidth, table.clientWidth]);
    const [wide, box] = await code();
    assert(wide > box, `${wide} <= ${box}`);
    await page.click("[data-wrap]");
    const [wrapped, after] = await code();
    assert(wrapped <= after, `wrapped: ${wrapped} > ${after}`);
    assertEquals(await page.$eval("[data-wrap]", (b) => b.getAttribute("aria-pressed")), "true");
    // The README under the files, rendered: headings, a pinned link, the image from the raw route.
    await page.goto(base);
    assertEquals(await page.$eval(".readme h2", (h) => h.id), "user-content-install");
    // Loaded lazily: once in view.
    await page.$eval(".readme img", (image) => image.scrollIntoView());
    await page.waitForFunction(() => {
      const image = document.querySelector<HTMLImageElement>(".readme img");
      return image !== null && image.complete;
    });
    assertEquals(await page.$eval(".readme img", (i) => (i as HTMLImageElement).naturalWidth), 1);
    assertEquals(await pwned(), undefined);
    assertEquals(await page.$$eval(".readme *", dangerousNodes), []);
    await Promise.all([page.waitForNavigation(), page.click('.readme a[href$="docs/guide.md"]')]);
    assertEquals(
      new URL(page.url()).pathname,
      `/sourcegraph/local/site/-/blob/${sha}/docs/guide.md`,
    );
    assertEquals(await page.$eval("article.markdown-body h1", (h) => h.textContent), "Guide");
    // A line of a rendered document opens its source view at that line.
    await page.goto(`${base}/-/blob/${sha}/docs/guide.md#L3`);
    await page.waitForFunction(() => location.search === "?plain=1");
    await page.waitForFunction(() => document.querySelector("tr.selected")?.id === "L3");
    assertEquals(problems, []);
  },
);

/** The outer HTML of `nodes` that could run script: such elements, `on*` attributes, script URLs. */
function dangerousNodes(nodes: Element[]): string[] {
  return nodes.filter((node) =>
    ["SCRIPT", "SVG", "IFRAME", "OBJECT", "EMBED"].includes(node.tagName.toUpperCase()) ||
    [...node.attributes].some((a) =>
      a.name.startsWith("on") || /^\s*(javascript|data):/i.test(a.value)
    )
  ).map((node) => node.outerHTML);
}

browserCases.add(
  "history pages in Chromium: every kind at 1280 and 390 px, none scrolls sideways",
  async ({ context, world: { service, history: { first, renamed, sha } } }) => {
    const shots = await screenshotsFolder();
    const page = await context.newPage();
    const base = `${service.url}/sourcegraph/local/history`;
    const kinds: [string, string][] = [
      ["blame", `/-/blame/${sha}/${LONG_HISTORY}#L2-L3`],
      ["commit", `/-/commit/${sha}`],
      ["root-commit", `/-/commit/${first}`],
      ["rename-commit", `/-/commit/${renamed}`],
      ["commits-file", `/-/commits/${sha}/${LONG_HISTORY}`],
      ["commits-folder", `/-/commits/${sha}/src`],
      ["versions-history", "/-/versions"],
      ["listing-last-commits", ""],
      ["folder-last-commits", `/-/tree/${sha}/src/deep`],
    ];
    // Each kind's own checks on its load (at 1280 px), not on a second one.
    let sides: string[] = [];
    const check = async (kind: string, width: number) => {
      if (width !== 1280) return;
      if (kind === "blame") {
        // The blame's range is marked as a file page's is.
        await page.waitForFunction(() => document.querySelectorAll("tr.selected").length > 0);
        assertEquals(await page.$$eval("tr.selected", (rows) => rows.map((row) => row.id)), [
          "L2",
          "L3",
        ]);
        const painted = await page.$$eval(
          "table.code tr",
          (rows) => rows.map((row) => getComputedStyle(row).backgroundColor),
        );
        // Only the range is painted (the first row keeps the table's background).
        assertEquals([painted[0] === painted[1], painted[1] === painted[2]], [false, true]);
      } else if (kind === "rename-commit") {
        // The rename is one file, "old -> new", and both of its sides open as file pages.
        const header = await page.$eval(".diff-header code", (code) => code.textContent ?? "");
        assertEquals(
          header,
          "docs/notes.md -> docs/moved_to_a_longer_folder_name/notes_renamed.md",
        );
        sides = await page.$$eval(
          ".file-links a",
          (links) => links.map((link) => (link as HTMLAnchorElement).href),
        );
      } else if (kind === "commit") {
        // The hostile subject is shown as text.
        const subject = await page.$eval("h2.commit-subject", (h) => h.textContent ?? "");
        assert(subject.startsWith('<img src=x onerror="window.__pwned=2">'), subject);
      }
    };
    const wide = await screenshotPages(page, kinds, { base, shots, check });
    if (shots) console.log(`screenshots of ${kinds.length} history page kinds: ${shots}`);
    assertEquals(wide, []);
    assertEquals(sides.length, 3);
    for (const [i, side] of sides.slice(0, 2).entries()) {
      const answer = await page.goto(side);
      assertEquals(answer?.status(), 200, side);
      if (shots) {
        await page.screenshot({ path: `${shots}/rename-side-${i}-390.png`, fullPage: true });
      }
      const text = await page.evaluate(() => document.body.innerText);
      assert(text.includes(i === 0 ? "line 3" : "line three"), text);
    }
  },
);

browserCases.add(
  "navigation in Chromium: outline beside the code when wide, links without scripts, no sideways scroll",
  async ({ context, world: { service, navSha: sha } }) => {
    const shots = await screenshotsFolder();
    const page = await context.newPage();
    const base = `${service.url}/sourcegraph/local/nav`;
    // The outline comes from the symbol index: wait until the commit's is built.
    for (let i = 0; i < 600; i++) {
      const body = await (await fetch(`${base}/-/symbols?q=twice`)).text();
      if (body.includes("src/a.ts")) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const kinds: [string, string][] = [
      ["file-outline", `/-/blob/${sha}/${LONG_NAV}`],
      [
        "definition-list",
        `/-/definition/${sha}/src/call.ts?line=1&column=${CALL.indexOf("twice") + 1}`,
      ],
      ["references", `/-/references/${sha}/src/util.ts?line=1&column=17`],
      ["file-hostile", `/-/blob/${sha}/${encodeURI(HOSTILE_NAV).replaceAll("?", "%3F")}`],
    ];
    // The outline, checked on the file page's own load at each width.
    const outlined: number[] = [];
    const check = async (kind: string, width: number) => {
      if (kind !== "file-outline") return;
      outlined.push(width);
      if (width === 390) {
        // Narrow: left out, so the code has the width.
        const display = await page.$eval("nav.outline", (nav) => getComputedStyle(nav).display);
        assertEquals(display, "none");
        return;
      }
      // Wide: the outline stands to the right of the code, its entries in line order.
      const [codeRight, outlineLeft, outlineWidth] = await page.evaluate(() => {
        const code = document.querySelector("table.code")!.getBoundingClientRect();
        const outline = document.querySelector("nav.outline")!.getBoundingClientRect();
        return [code.right, outline.left, outline.width];
      });
      assert(outlineWidth > 100 && outlineLeft >= codeRight, `${codeRight} ${outlineLeft}`);
      assertEquals(
        await page.$$eval("nav.outline li a", (links) => links.map((a) => a.textContent)),
        ["parseConfiguration", "ConfigurationReader", "read"],
      );
    };
    const wide = await screenshotPages(page, kinds, { base, shots, status: 200, check });
    if (shots) console.log(`screenshots of ${kinds.length} navigation page kinds: ${shots}`);
    assertEquals(wide, []);
    assertEquals(outlined.sort((a, b) => b - a), [1280, 390]);
    // With scripts off, a name's link (a plain href) lands on its definition's line.
    await page.setJavaScriptEnabled(false);
    await page.goto(`${base}/-/blob/${sha}/${LONG_NAV}`);
    await Promise.all([page.waitForNavigation(), page.click('tr#L10 a[href*="column="]')]);
    const landed = new URL(page.url());
    assertEquals(landed.pathname, `/sourcegraph/local/nav/-/blob/${sha}/${LONG_NAV}`);
    assertEquals(landed.hash, "#L4");
    await Promise.all([page.waitForNavigation(), page.click('tr#L5 a[href*="column=10"]')]);
    assertEquals(new URL(page.url()).pathname, `/sourcegraph/local/nav/-/blob/${sha}/src/util.ts`);
    assertEquals(new URL(page.url()).hash, "#L1");
  },
);

httpCases.add(
  "Sync now: a signed-in person's button (CSRF-checked) syncs the repository and goes back to its page; others get no button and a refusal",
  async ({ service, project }) => {
    const http = overHttp(service.url);
    const anonymous = await pageRequest(http, "/sourcegraph/local/project");
    assertEquals(anonymous.status, 200);
    assert(!anonymous.body.includes("Sync now"), "no button for an anonymous viewer");
    const signedIn = await signIn(http, TOKEN);
    const cookie = signedIn.cookie!;
    const own = await pageRequest(http, "/sourcegraph/local/project", { cookie });
    assertIncludes(own.body, "Sync now");
    assertIncludes(own.body, '<input type="hidden" name="repo" value="local/project"');
    const csrf = hiddenField(own.body, "csrf")!;

    await project.write({ "a.txt": "two\n" });
    const commit = await project.commit("two");
    const line = `synced local/project: main@${commit.slice(0, 12)}`;
    const refusals = [
      [{ csrf, repo: "local/project" }, undefined, 401],
      [{ csrf: "x".repeat(csrf.length), repo: "local/project" }, cookie, 403],
      [{ csrf, repo: "local/nothing" }, cookie, 404],
    ] as const;
    for (const [form, withCookie, status] of refusals) {
      const answer = await pageRequest(http, "/sourcegraph/-/sync", { form, cookie: withCookie });
      assertEquals(answer.status, status, answer.body);
    }
    assert(!service.log.some((l) => l.includes(line)), "a refused form syncs nothing");

    const synced = await pageRequest(http, "/sourcegraph/-/sync", {
      form: { csrf, repo: "local/project" },
      cookie,
    });
    assertEquals(synced.status, 303);
    assertEquals(synced.headers.get("location"), "/sourcegraph/local/project");
    for (let tries = 0; tries < 600 && !service.log.some((l) => l.includes(line)); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assertEquals(service.log.filter((l) => l.includes(line)).length, 1, service.log.join("\n"));
    const read = await fetch(`${service.url}/sourcegraph/v1/repo/read?repo=local/project`, {
      method: "POST",
      body: JSON.stringify({ Path: "a.txt" }),
    });
    assertEquals((await read.json()).Content, "two\n");
  },
);

/** A client's OAuth state kept in memory, as an MCP client keeps it. */
class MemoryProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl: URL | null = null;
  readonly redirectUrl: string;

  constructor(redirectUrl: string) {
    this.redirectUrl = redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "E2E agent",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A loopback listener standing for the client's redirect URI: it keeps the codes it receives. */
function callbackServer() {
  const codes: URL[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const url = new URL(request.url);
    // Only the redirects: the browser also asks this origin for its icon.
    if (url.pathname !== "/callback") return new Response("not found", { status: 404 });
    codes.push(url);
    return new Response("You may close this window.");
  });
  return { codes, server, url: `http://127.0.0.1:${server.addr.port}/callback` };
}

/** Completes sign-in (when asked) and approval in Chromium; returns the page it ended on. */
async function signInAndApprove(
  page: Page,
  url: string,
  clientName = "E2E agent",
): Promise<string> {
  await page.goto(url);
  if (new URL(page.url()).pathname === "/sourcegraph/-/sign-in") {
    await page.type('input[name="secret"]', OAUTH_TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
  }
  assertEquals(new URL(page.url()).pathname, "/sourcegraph/-/oauth/authorize");
  assertIncludes(await page.content(), clientName);
  await Promise.all([page.waitForNavigation(), page.click("#approve")]);
  return page.url();
}

/** What every case shares: one service, the client's redirect URI, the document server, one Chromium. */
interface OAuthWorld {
  service: RunningService;
  /** The service's MCP endpoint. */
  serverUrl: string;
  callback: ReturnType<typeof callbackServer>;
  /** The https origin of the client metadata documents. */
  documents: string;
  /** How many requests the document server has answered. */
  served: () => number;
  browser: Browser;
}

// The OAuth cases, in order, on one service (public reads off, client metadata documents on,
// trusting the test's CA), each in a browser context of its own.
const oauthCases = new SharedCases<OAuthWorld>();

/** Runs `fn` on a fresh OAuth world in `browser`; everything else is stopped and removed afterwards. */
async function withOAuthWorld(
  browser: Browser,
  fn: (world: OAuthWorld) => Promise<void>,
): Promise<void> {
  const parent = await tempDir("sg-oauth-e2e-");
  const callback = callbackServer();
  try {
    await withCertificate(join(parent, "tls"), async (tls) => {
      const documents = documentServer(tls, callback.url);
      const repo = await createRepo({ "a.txt": "hello through OAuth\n" }, { parent, name: "site" });
      const service = await startService(parent, {
        SOURCEGRAPH_API_TOKEN: OAUTH_TOKEN,
        SOURCEGRAPH_PUBLIC_READ: "false",
        SOURCEGRAPH_OAUTH_CLIENT_DOCUMENTS: "true",
        SOURCEGRAPH_OAUTH_CLIENT_DOCUMENTS_PRIVATE: "true",
        // No case searches: no index build (a builder process) for the one repository.
        SOURCEGRAPH_SEARCH_INDEX: "false",
        // The service trusts the test's CA (the document server's certificate).
        DENO_CERT: tls.caFile,
      }, { repositories: [repo.path] });
      try {
        await fn({
          service,
          serverUrl: `${service.url}/sourcegraph/mcp`,
          callback,
          documents: documents.base,
          served: () => documents.served,
          browser,
        });
      } finally {
        await service.stop();
        await documents.server.shutdown();
      }
    });
  } finally {
    await callback.server.shutdown();
    await removeDir(parent);
  }
}

/**
 * An https server of client metadata documents on loopback: `agent.json` is a
 * client redirecting to `redirectUri`, `foreign.json` names another URL as its id.
 */
function documentServer(
  tls: { cert: string; key: string },
  redirectUri: string,
): { server: Deno.HttpServer; base: string; served: number } {
  const document = (base: string) => ({
    client_id: `${base}/clients/agent.json`,
    client_name: "CIMD agent",
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  });
  const answered = { served: 0 };
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: tls.cert,
    key: tls.key,
    onListen: () => {},
  }, (request) => {
    const url = new URL(request.url);
    answered.served++;
    if (url.pathname === "/clients/agent.json") return Response.json(document(url.origin));
    if (url.pathname === "/clients/foreign.json") {
      return Response.json({ ...document(url.origin), client_id: "https://elsewhere.example/c" });
    }
    return new Response("not found", { status: 404 });
  });
  return {
    server,
    base: `https://127.0.0.1:${server.addr.port}`,
    get served() {
      return answered.served;
    },
  };
}

/** Runs `fn` in a fresh context of `browser` (its own cookies), closed after it. */
async function inContext(
  browser: Browser,
  fn: (context: BrowserContext) => Promise<void>,
): Promise<void> {
  const context = await browser.createBrowserContext();
  try {
    await fn(context);
  } finally {
    await context.close();
  }
}

oauthCases.add(
  "OAuth end to end: the SDK's auth() registers, Chromium signs in and approves, the SDK lists tools and reads; a token for another resource is refused",
  ({ service, serverUrl, callback, browser }) =>
    inContext(browser, async (context) => {
      // Without credentials the endpoint answers with the challenge the SDK follows.
      const anonymous = new Client({ name: "anonymous", version: "0.0.0" });
      const refused = await anonymous.connect(new StreamableHTTPClientTransport(new URL(serverUrl)))
        .then(() => "connected", (error: Error) => String(error));
      assert(refused !== "connected", "an anonymous client connected");

      const provider = new MemoryProvider(callback.url);
      assertEquals(await auth(provider, { serverUrl }), "REDIRECT");
      assert(provider.client?.client_id.startsWith("sgc_"), "dynamically registered");
      const authorizationUrl = provider.authorizationUrl!;
      assertEquals(authorizationUrl.searchParams.get("code_challenge_method"), "S256");
      assertEquals(authorizationUrl.searchParams.get("resource"), serverUrl);

      const page = await context.newPage();
      const landed = await signInAndApprove(page, authorizationUrl.href);
      assert(landed.startsWith(callback.url), landed);
      const code = callback.codes.at(-1)!.searchParams.get("code")!;
      assertEquals(await auth(provider, { serverUrl, authorizationCode: code }), "AUTHORIZED");
      const access = provider.saved!.access_token;
      assert(!landed.includes(access), "the access token in a URL");

      const client = new Client({ name: "oauth", version: "0.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }),
      );
      try {
        const tools = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
        assert(tools.includes("read") && tools.includes("prepare"), tools.join(","));
        const read = await client.callTool({
          name: "read",
          arguments: { repo: "local/site", path: "a.txt" },
        });
        assertIncludes(JSON.stringify(read.content), "hello through OAuth");
      } finally {
        await client.close();
      }

      // The same service under another name (localhost) is another resource: a token it
      // mints there is refused here.
      const other = `http://localhost:${new URL(service.url).port}`;
      const { verifier, challenge } = pkce();
      const foreign = new URL(`${other}/sourcegraph/-/oauth/authorize`);
      for (
        const [name, value] of Object.entries({
          client_id: provider.client!.client_id,
          redirect_uri: callback.url,
          response_type: "code",
          code_challenge: challenge,
          code_challenge_method: "S256",
        })
      ) foreign.searchParams.set(name, value);
      await signInAndApprove(page, foreign.href);
      const foreignCode = callback.codes.at(-1)!.searchParams.get("code")!;
      const exchanged = await fetch(`${service.url}/sourcegraph/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: foreignCode,
          client_id: provider.client!.client_id,
          redirect_uri: callback.url,
          code_verifier: verifier,
        }),
      });
      const minted = await exchanged.json();
      assertEquals(exchanged.status, 200);
      const answer = await fetch(`${serverUrl}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${minted.access_token}`,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      assertEquals(answer.status, 401);
      assertIncludes(answer.headers.get("www-authenticate")!, 'error="invalid_token"');
      assertEquals((await answer.json()).code, "INVALID_TOKEN");
      for (const line of service.log) {
        assert(!line.includes(access) && !line.includes(code), `a secret in the log: ${line}`);
      }
    }),
);

/** A provider that names itself by the URL of its metadata document instead of registering. */
class DocumentProvider extends MemoryProvider {
  readonly clientMetadataUrl: string;

  constructor(redirectUrl: string, documentUrl: string) {
    super(redirectUrl);
    this.clientMetadataUrl = documentUrl;
  }
}

/** Lists the tools and reads `a.txt` of `local/site` with `provider`'s tokens. */
async function listAndRead(serverUrl: string, provider: OAuthClientProvider): Promise<string[]> {
  const client = new Client({ name: "oauth", version: "0.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }),
  );
  try {
    const tools = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
    const read = await client.callTool({
      name: "read",
      arguments: { repo: "local/site", path: "a.txt" },
    });
    assertIncludes(JSON.stringify(read.content), "hello through OAuth");
    return tools;
  } finally {
    await client.close();
  }
}

oauthCases.add(
  "OAuth end to end with a client metadata document: the SDK names its https document, Chromium signs in and approves, the SDK lists tools and reads",
  ({ service, serverUrl, callback, documents, served, browser }) =>
    inContext(browser, async (context) => {
      const provider = new DocumentProvider(callback.url, `${documents}/clients/agent.json`);
      assertEquals(await auth(provider, { serverUrl }), "REDIRECT");
      // No registration: the client id is the document's URL.
      assertEquals(provider.client?.client_id, `${documents}/clients/agent.json`);
      const authorizationUrl = provider.authorizationUrl!;
      assertEquals(
        authorizationUrl.searchParams.get("client_id"),
        `${documents}/clients/agent.json`,
      );
      const page = await context.newPage();
      const landed = await signInAndApprove(page, authorizationUrl.href, "CIMD agent");
      assert(landed.startsWith(callback.url), landed);
      assert(served() >= 1, "the service fetched the document");
      const code = callback.codes.at(-1)!.searchParams.get("code")!;
      assertEquals(await auth(provider, { serverUrl, authorizationCode: code }), "AUTHORIZED");
      const tools = await listAndRead(serverUrl, provider);
      assert(tools.includes("read") && tools.includes("prepare"), tools.join(","));

      // Documents that do not hold: never a redirect, an error page naming the reason.
      for (
        const [path, reason] of [
          ["/clients/foreign.json", "its client_id is not its own URL"],
          ["/clients/missing.json", "it answered 404"],
        ]
      ) {
        const refused = new URL(authorizationUrl);
        refused.searchParams.set("client_id", `${documents}${path}`);
        const answer = await page.goto(refused.href);
        assertEquals(answer?.status(), 401, path); // INVALID_CLIENT
        assertEquals(new URL(page.url()).origin, service.url, "never redirected");
        assertIncludes(await page.content(), reason);
      }
      // The redirect URI must be one the document names.
      const elsewhere = new URL(authorizationUrl);
      elsewhere.searchParams.set("redirect_uri", "http://127.0.0.1:9/callback");
      assertEquals((await page.goto(elsewhere.href))?.status(), 400);
    }),
);

function pkce(): { verifier: string; challenge: string } {
  const verifier = `${crypto.randomUUID()}-${crypto.randomUUID()}`;
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}
