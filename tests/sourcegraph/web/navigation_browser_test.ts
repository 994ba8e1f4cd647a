/// <reference lib="dom" />
// Functions given to page.evaluate run in the browser, hence the DOM types.
/**
 * Code navigation in Chromium at 1280 and 390 px: a file page with its
 * outline (beside the code when wide, left out when narrow), the definition
 * list and the references view (screenshotted on request); none scrolls
 * sideways. A name's link reaches its definition with scripts off, and
 * hostile names and paths never run.
 */

import { assert, assertEquals } from "../../support/assert.ts";
import {
  chromiumPath,
  launchBrowser,
  screenshotPages,
  screenshotsFolder,
} from "../../support/browser.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { startService } from "../../support/sourcegraph_service.ts";

const CHROMIUM = chromiumPath();

const LONG = "src/deep/folder/with_a_rather_long_name/parse_configuration_files.ts";
// A member of a receiver of no evident type: the symbol index's two definitions are listed.
const CALL = "export const n = (globalThis as any).lib.twice();\n";
const HOSTILE = `src/<img src=x onerror="window.__pwned=1">.ts`;

Deno.test({
  name:
    "navigation in Chromium: outline beside the code when wide, links without scripts, no sideways scroll",
  ignore: CHROMIUM === null,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const parent = await tempDir("sg-navigation-browser-");
    const shots = await screenshotsFolder();
    const repo = await createRepo({
      [LONG]: [
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
      [HOSTILE]: 'import { trimmed } from "./util.ts";\nexport const pwned = trimmed("");\n',
    }, { parent, name: "site" });
    const sha = await repo.git("rev-parse", "HEAD");
    const service = await startService(parent, {}, { repositories: [repo.path] });
    const browser = await launchBrowser(CHROMIUM!);
    try {
      const page = await browser.newPage();
      const base = `${service.url}/sourcegraph/local/site`;
      // The outline comes from the symbol index: wait until the commit's is built.
      for (let i = 0; i < 600; i++) {
        const body = await (await fetch(`${base}/-/symbols?q=twice`)).text();
        if (body.includes("src/a.ts")) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const kinds: [string, string][] = [
        ["file-outline", `/-/blob/${sha}/${LONG}`],
        [
          "definition-list",
          `/-/definition/${sha}/src/call.ts?line=1&column=${CALL.indexOf("twice") + 1}`,
        ],
        ["references", `/-/references/${sha}/src/util.ts?line=1&column=17`],
        ["file-hostile", `/-/blob/${sha}/${encodeURI(HOSTILE).replaceAll("?", "%3F")}`],
      ];
      const wide = await screenshotPages(page, kinds, { base, shots, status: 200 });
      if (shots) console.log(`screenshots of ${kinds.length} navigation page kinds: ${shots}`);
      assertEquals(wide, []);
      // Wide: the outline stands to the right of the code, its entries in line order.
      await page.setViewport({ width: 1280, height: 900 });
      await page.goto(`${base}/-/blob/${sha}/${LONG}`);
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
      // Narrow: left out, so the code has the width.
      await page.setViewport({ width: 390, height: 900 });
      assertEquals(
        await page.$eval("nav.outline", (nav) => getComputedStyle(nav).display),
        "none",
      );
      // With scripts off, a name's link (a plain href) lands on its definition's line.
      await page.setJavaScriptEnabled(false);
      await page.goto(`${base}/-/blob/${sha}/${LONG}`);
      await Promise.all([page.waitForNavigation(), page.click('tr#L10 a[href*="column="]')]);
      const landed = new URL(page.url());
      assertEquals(landed.pathname, `/sourcegraph/local/site/-/blob/${sha}/${LONG}`);
      assertEquals(landed.hash, "#L4");
      await Promise.all([page.waitForNavigation(), page.click('tr#L5 a[href*="column=10"]')]);
      assertEquals(
        new URL(page.url()).pathname,
        `/sourcegraph/local/site/-/blob/${sha}/src/util.ts`,
      );
      assertEquals(new URL(page.url()).hash, "#L1");
      await page.setJavaScriptEnabled(true);
    } finally {
      await browser.close();
      await service.stop();
      await removeDir(parent);
    }
  },
});
