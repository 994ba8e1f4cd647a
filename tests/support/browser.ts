/**
 * A real headless Chromium for page tests, driven by puppeteer-core (the
 * browser is the system's: Debian's `chromium` package, which `.ci/run`
 * installs; `CHROMIUM_PATH` names another). puppeteer-core runs under the
 * test task's own permissions (playwright-core probes `/proc/sys`, which
 * Deno grants only with every permission). Where no Chromium is found the
 * browser tests are reported as ignored, unless `SOURCEGRAPH_REQUIRE_SYSTEM_TOOLS=1`
 * (set by `.ci/run`) makes that a failure.
 *
 * @module
 */

import puppeteer, {
  type Browser,
  type BrowserContext,
  type HTTPResponse,
  type Page,
} from "puppeteer-core";
import { assertEquals } from "./assert.ts";
import type { SharedCases } from "./shared_cases.ts";
import { systemTool } from "./system_tools.ts";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** The Chromium executable to use, or null when there is none. */
export function chromiumPath(): string | null {
  const named = Deno.env.get("CHROMIUM_PATH");
  return systemTool(named ? [named] : CANDIDATES, {
    what: "Chromium",
    install: "apt-get install chromium, or set CHROMIUM_PATH",
  });
}

/** Launches headless Chromium (no sandbox: CI runs as root). */
export async function launchBrowser(executablePath: string): Promise<Browser> {
  return await puppeteer.launch({
    executablePath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-features=BackForwardCache",
    ],
  });
}

/** What a browser case gets: a fresh browser context, and the file's shared fixture. */
export interface BrowserCase<W> {
  context: BrowserContext;
  world: W;
}

/**
 * Runs `cases` as steps of `t` in `browser`, each in a fresh browser context
 * (its own cookies, storage and permissions), closed after it, beside
 * `world` (a fixture they share).
 */
export async function runBrowserCases<W>(
  t: Deno.TestContext,
  cases: SharedCases<BrowserCase<W>>,
  options: { browser: Browser; world: W },
): Promise<void> {
  await cases.runEach(t, async (fn) => {
    const context = await options.browser.createBrowserContext();
    try {
      await fn({ context, world: options.world });
    } finally {
      await context.close();
    }
  });
}

/**
 * The folder for screenshots a person asked for with `SOURCEGRAPH_SCREENSHOTS`
 * (created), or null: a full-page PNG costs Chromium about a processor-second
 * on a tall page, several times the load and checks of the page, so a run
 * that nobody looks at takes none.
 */
export async function screenshotsFolder(): Promise<string | null> {
  const shots = Deno.env.get("SOURCEGRAPH_SCREENSHOTS");
  if (!shots) return null;
  await Deno.mkdir(shots, { recursive: true });
  return shots;
}

/** The widths every page is checked at: a desktop window and a phone. */
export const PAGE_WIDTHS = [1280, 390] as const;

/**
 * Loads `url` in `page` once and calls `check` at each of {@linkcode PAGE_WIDTHS}
 * (`height` px high, 900 by default), resizing the window in between: the
 * pages' layout is their style sheet's alone (no script reads the window's
 * size), which lays out again on a resize as on a load at that width, so a
 * second load would cost Chromium the page again for nothing. The page is
 * loaded at the width the window already has (1280 first otherwise), so a run
 * of pages resizes once per page. Returns the load's answer.
 */
export async function loadAtEachWidth(
  page: Page,
  url: string,
  options: { check: (width: number) => Promise<void>; height?: number },
): Promise<HTTPResponse | null> {
  const height = options.height ?? 900;
  const at = page.viewport();
  const phoneFirst = at?.width === PAGE_WIDTHS[1] && at.height === height;
  const [first, second] = phoneFirst ? [PAGE_WIDTHS[1], PAGE_WIDTHS[0]] : PAGE_WIDTHS;
  if (at?.width !== first || at.height !== height) await page.setViewport({ width: first, height });
  const answer = await page.goto(url);
  await options.check(first);
  await page.setViewport({ width: second, height });
  await options.check(second);
  return answer;
}

/**
 * Opens each `[kind, path]` under `base` once, at 1280 and 390 px (see
 * {@linkcode loadAtEachWidth}), checks at each width that no script of the
 * page's content ran (`window.__pwned`) and, with `status`, the answer's
 * status; with `shots` (see {@linkcode screenshotsFolder}) saves a full-page
 * screenshot `kind-width.png` there; with `check`, calls it at each width
 * (a case's own checks of that page, on the same load); returns the pages
 * that scroll sideways (`kind at width: N px`).
 */
export async function screenshotPages(
  page: Page,
  kinds: readonly (readonly [string, string])[],
  options: {
    base: string;
    shots: string | null;
    status?: number;
    check?: (kind: string, width: number) => Promise<void>;
  },
): Promise<string[]> {
  const wide: string[] = [];
  for (const [kind, path] of kinds) {
    const answer = await loadAtEachWidth(page, `${options.base}${path}`, {
      check: async (width) => {
        if (options.shots !== null) {
          await page.screenshot({ path: `${options.shots}/${kind}-${width}.png`, fullPage: true });
        }
        const scrolls = await scrollsSideways(page);
        if (scrolls) wide.push(`${kind} at ${width}: ${scrolls}`);
        assertEquals(
          await page.evaluate(() => (window as { __pwned?: number }).__pwned),
          undefined,
          kind,
        );
        await options.check?.(kind, width);
      },
    });
    if (options.status !== undefined) assertEquals(answer?.status(), options.status, kind);
  }
  return wide;
}

/** How wide the page is (`N px`) when it scrolls sideways in its window, or null. */
export async function scrollsSideways(page: Page): Promise<string | null> {
  const [scrolled, inner] = await page.evaluate(() => [
    document.scrollingElement!.scrollWidth,
    innerWidth,
  ]);
  return scrolled > inner ? `${scrolled} px` : null;
}
