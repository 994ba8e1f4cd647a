/// <reference lib="dom" />
// Functions given to page.evaluate run in the browser, hence the DOM types.
import { assert, assertEquals } from "../../support/assert.ts";
import { chromiumPath, launchBrowser } from "../../support/browser.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { startService } from "../../support/sourcegraph_service.ts";
import { HOSTILE_MARKDOWN, PIXEL_PNG } from "../../support/hostile_markdown.ts";

const CHROMIUM = chromiumPath();

Deno.test({
  name:
    "pages in Chromium: highlighting in light and dark, rendered Markdown runs nothing, images load, lines wrap on request",
  ignore: CHROMIUM === null,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const parent = await tempDir("sg-browser-code-");
    const repo = await createRepo({
      "README.md": HOSTILE_MARKDOWN,
      "docs/guide.md": "# Guide\n\nline two\n\nline four\n",
      "docs/logo.png": PIXEL_PNG,
      "src/main.c": `int main(void) { return 0; } /* ${"wide ".repeat(600)}*/\n`,
    }, { parent, name: "site" });
    const sha = await repo.git("rev-parse", "HEAD");
    const service = await startService(parent, {}, { repositories: [repo.path] });
    const browser = await launchBrowser(CHROMIUM!);
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(`page error: ${error}`));
      page.on("console", (message) => {
        if (message.text().includes("Content Security Policy")) problems.push(message.text());
      });
      const base = `${service.url}/sourcegraph/local/site`;
      const pwned = () => page.evaluate(() => (window as { __pwned?: number }).__pwned);
      // Keywords are coloured by the style sheet, differently in each colour scheme.
      const colours: string[] = [];
      for (const scheme of ["light", "dark"]) {
        await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
        await page.goto(`${base}/-/blob/${sha}/src/main.c`);
        const [keyword, text] = await page.$eval("tr#L1 td:last-child", (cell) => [
          getComputedStyle(cell.querySelector(".hljs-keyword")!).color,
          getComputedStyle(cell).color,
        ]);
        assert(keyword !== text, `${scheme}: keyword ${keyword}, text ${text}`);
        colours.push(keyword);
      }
      assert(colours[0] !== colours[1], `the same keyword colour in both schemes: ${colours[0]}`);
      // The long line scrolls in its box; with "Wrap lines" it wraps and nothing scrolls.
      const code = () =>
        page.$eval("table.code", (table) => [table.scrollWidth, table.clientWidth]);
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
      const dangerous = await page.$$eval(
        ".readme *",
        (nodes) =>
          nodes.filter((node) =>
            ["SCRIPT", "SVG", "IFRAME", "OBJECT", "EMBED"].includes(node.tagName.toUpperCase()) ||
            [...node.attributes].some((a) =>
              a.name.startsWith("on") || /^\s*(javascript|data):/i.test(a.value)
            )
          ).map((node) => node.outerHTML),
      );
      assertEquals(dangerous, []);
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
    } finally {
      await browser.close();
      await service.stop();
      await removeDir(parent);
    }
  },
});
