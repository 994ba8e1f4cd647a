/**
 * Builds the installable Agent Plugins 1.0.0 package of the Git knowledge
 * source: `dist/git-knowledge-source/` (or the folder given as the first
 * argument) with plugin.json, mcp.json, package.json, README.md, server.mjs
 * (the stdio server, one self-contained bundle with the MCP SDK and zod
 * inlined) and protocol.mjs (the feed schemas, the `./protocol` export).
 *
 * Run: `deno task build:git-source`.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { join } from "node:path";

const here = fileURLToPath(new URL(".", import.meta.url));
const checkout = join(here, "..");

/** Builds the package into `outDir` and returns its path. */
export async function buildGitSourcePackage(outDir: string): Promise<string> {
  await Deno.remove(outDir, { recursive: true }).catch(() => {});
  await Deno.mkdir(outDir, { recursive: true });
  for (const name of ["plugin.json", "mcp.json", "package.json"]) {
    await Deno.copyFile(join(here, "package", name), join(outDir, name));
  }
  await Deno.copyFile(join(here, "README.md"), join(outDir, "README.md"));
  await bundle(join(here, "main.ts"), join(outDir, "server.mjs"));
  await bundle(join(here, "protocol.ts"), join(outDir, "protocol.mjs"));
  return outDir;
}

async function bundle(entry: string, output: string): Promise<void> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--config",
      join(checkout, "deno.json"),
      "--platform",
      "deno",
      "--output",
      output,
      entry,
    ],
    env: { NO_COLOR: "1" },
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!result.success) throw new Error(`bundling ${entry} failed`);
}

if (import.meta.main) {
  const outDir = Deno.args[0] ?? join(checkout, "dist", "git-knowledge-source");
  console.log(`built ${await buildGitSourcePackage(outDir)}`);
}
