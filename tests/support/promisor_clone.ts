/**
 * A partial clone whose blobs are missing locally and whose promisor remote
 * is an `ext::` transport that writes a marker file when it runs (the clone's
 * own configuration allows that transport). Reading a blob through safe Git
 * must fail and leave no marker; plain Git fetches and creates it.
 *
 * @module
 */

import { join } from "node:path";
import { createRepo, git } from "./git_repo.ts";

/** The clone, the marker path, and the source repository. */
export interface PromisorClone {
  clone: string;
  marker: string;
  source: string;
}

/** Creates the fixture below `parent` with a committed `files` tree. */
export async function createPromisorClone(
  parent: string,
  files: Record<string, string>,
): Promise<PromisorClone> {
  const source = await createRepo(files, { parent, name: "source" });
  await source.git("config", "uploadpack.allowFilter", "true");
  await source.git("config", "uploadpack.allowAnySHA1InWant", "true");
  const clone = join(parent, "clone");
  await git(parent, [
    "clone",
    "-q",
    "--filter=blob:none",
    "--no-checkout",
    `file://${source.path}`,
    clone,
  ]);
  const marker = join(parent, "transport-ran");
  const transport = join(parent, "transport.sh");
  await Deno.writeTextFile(
    transport,
    `#!/bin/sh\ntouch ${marker}\nexec git-upload-pack ${source.path}\n`,
  );
  await Deno.chmod(transport, 0o755);
  await git(clone, ["config", "remote.origin.url", `ext::${transport}`]);
  await git(clone, ["config", "protocol.ext.allow", "always"]);
  return { clone, marker, source: source.path };
}
