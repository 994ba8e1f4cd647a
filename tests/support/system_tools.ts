/**
 * System programs some tests need (Debian packages that `.ci/run` installs):
 * where one is missing those tests are reported as ignored with a message,
 * unless `SOURCEGRAPH_REQUIRE_SYSTEM_TOOLS=1` (set by `.ci/run`) makes that
 * a failure.
 *
 * @module
 */

/** The first of `paths` that is a file, or null (thrown in CI) naming `install`. */
export function systemTool(
  paths: readonly string[],
  options: { what: string; install: string },
): string | null {
  for (const path of paths) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not there
    }
  }
  if (Deno.env.get("SOURCEGRAPH_REQUIRE_SYSTEM_TOOLS") === "1") {
    throw new Error(`no ${options.what} found (${options.install})`);
  }
  console.error(`${options.what} tests ignored: none found (${options.install})`);
  return null;
}
