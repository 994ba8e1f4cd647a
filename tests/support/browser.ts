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

import puppeteer, { type Browser } from "puppeteer-core";
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
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
}
