/**
 * Test helper program: drives a Git knowledge source through changes and
 * acknowledge until the feed is drained, printing one JSON line per step
 * (`{"page": …}` after changes returned, `{"acked": token}` after an
 * acknowledge returned). The crash test kills it at random points.
 *
 * Args: repository, data folder, JSON path list.
 *
 * @module
 */

import { validateConfig } from "../../git_source/config.ts";
import { GitKnowledgeSource } from "../../git_source/feed.ts";

const [repository, dataDirectory, paths] = Deno.args;
const feed = new GitKnowledgeSource(validateConfig({
  repository,
  dataDirectory,
  paths: JSON.parse(paths),
  limits: { maxFiles: 200, maxFileBytes: 65_536, maxBatchBytes: 16 * 1024 },
}));
const write = (line: object) =>
  Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(line) + "\n"));
while (true) {
  const page = await feed.changes();
  write({ page });
  await feed.acknowledge(page.token);
  write({ acked: page.token });
  if (page.updates.length === 0) break;
}
