/// <reference lib="dom" />
// Functions given to page.evaluate run in the browser, hence the DOM types.
/**
 * The history pages in Chromium at 1280 and 390 px: blame, commit, the
 * commits of a file and a folder, the Versions tab and a listing with its
 * last-commit column (screenshotted on request); none scrolls sideways, a blame's
 * `#L2-L3` range is marked, hostile subjects and names never run, and a
 * rename in a commit that is no retained version shows as "old -> new" with
 * its file's pages at both sides opening.
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

Deno.test({
  name: "history pages in Chromium: every kind at 1280 and 390 px, none scrolls sideways",
  ignore: CHROMIUM === null,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const parent = await tempDir("sg-history-browser-");
    const shots = await screenshotsFolder();
    const long = "src/deep/folder/with_a_rather_long_name/parse_config.ts";
    const notes = Array.from({ length: 12 }, (_, i) => `- line ${i + 1}\n`).join("");
    const repo = await createRepo({
      [long]: `export function parseConfig(text: string): string {\n  return text;\n}\n`,
      "a.txt": "one\ntwo\nthree\n",
      "docs/notes.md": notes,
    }, { parent, name: "site" });
    await Deno.mkdir(`${repo.path}/docs/moved_to_a_longer_folder_name`);
    await repo.git("mv", "docs/notes.md", "docs/moved_to_a_longer_folder_name/notes_renamed.md");
    await repo.write({
      "docs/moved_to_a_longer_folder_name/notes_renamed.md": notes.replace("line 3", "line three"),
    });
    await repo.git("add", "-A");
    await repo.git("commit", "-q", "-m", "Move the notes");
    await repo.write({
      [long]: `export function parseConfig(text: string): string {\n  return text.trim(); // ${
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
    const sha = await repo.git("rev-parse", "HEAD");
    const renamed = await repo.git("rev-parse", "HEAD~1");
    const first = await repo.git("rev-parse", "HEAD~2");
    const service = await startService(parent, {}, { repositories: [repo.path] });
    const browser = await launchBrowser(CHROMIUM!);
    try {
      const page = await browser.newPage();
      const base = `${service.url}/sourcegraph/local/site`;
      const kinds: [string, string][] = [
        ["blame", `/-/blame/${sha}/${long}#L2-L3`],
        ["commit", `/-/commit/${sha}`],
        ["root-commit", `/-/commit/${first}`],
        ["rename-commit", `/-/commit/${renamed}`],
        ["commits-file", `/-/commits/${sha}/${long}`],
        ["commits-folder", `/-/commits/${sha}/src`],
        ["versions-history", "/-/versions"],
        ["listing-last-commits", ""],
        ["folder-last-commits", `/-/tree/${sha}/src/deep`],
      ];
      const wide = await screenshotPages(page, kinds, { base, shots });
      if (shots) console.log(`screenshots of ${kinds.length} history page kinds: ${shots}`);
      assertEquals(wide, []);
      // The blame's range is marked as a file page's is.
      await page.goto(`${base}/-/blame/${sha}/${long}#L2-L3`);
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
      // The rename is one file, "old -> new", and both of its sides open as file pages.
      await page.goto(`${base}/-/commit/${renamed}`);
      const header = await page.$eval(".diff-header code", (code) => code.textContent ?? "");
      assertEquals(header, "docs/notes.md -> docs/moved_to_a_longer_folder_name/notes_renamed.md");
      const sides = await page.$$eval(
        ".file-links a",
        (links) => links.map((link) => (link as HTMLAnchorElement).href),
      );
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
      // The hostile subject is shown as text.
      await page.goto(`${base}/-/commit/${sha}`);
      const subject = await page.$eval("h2.commit-subject", (h) => h.textContent ?? "");
      assert(subject.startsWith('<img src=x onerror="window.__pwned=2">'), subject);
    } finally {
      await browser.close();
      await service.stop();
      await removeDir(parent);
    }
  },
});
