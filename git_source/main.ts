/**
 * The Git knowledge source: an MCP stdio server. Configuration comes only
 * from the launcher's environment (GIT_SOURCE_REPOSITORY, GIT_SOURCE_PATHS,
 * PLUGIN_DATA); a bad environment, or a repository that does not exist or is
 * not a Git repository, stops the start with a one-line reason on stderr;
 * paths HEAD does not hold are warned about. Runs under Deno (`deno run`)
 * and, bundled, under Node.
 *
 * @module
 */

import process from "node:process";
import { configFromEnvironment, type SourceConfig } from "./config.ts";
import { GitSourceError } from "./errors.ts";
import { GitKnowledgeSource } from "./feed.ts";
import { checkRepository } from "./repository_check.ts";
import { createGitSourceServer } from "./server.ts";
import { LineStdioTransport } from "./stdio_transport.ts";

function readEnvironment(name: string): string | undefined {
  try {
    return process.env[name];
  } catch {
    return undefined; // Deno without --allow-env for it
  }
}

let config: SourceConfig;
try {
  config = configFromEnvironment(readEnvironment);
} catch (error) {
  const reason = error instanceof GitSourceError ? error.message : "invalid environment";
  process.stderr.write(`git-knowledge-source: ${reason}\n`);
  process.exit(1);
}
const check = await checkRepository(config);
if (check.fatal !== null) {
  process.stderr.write(`git-knowledge-source: ${check.fatal}\n`);
  process.exit(1);
}
for (const warning of check.warnings) process.stderr.write(`git-knowledge-source: ${warning}\n`);
const server = createGitSourceServer(new GitKnowledgeSource(config), {
  log: (line) => process.stderr.write(`git-knowledge-source: ${line}\n`),
});
await server.connect(new LineStdioTransport());
