/**
 * Test helper program: prints HEAD of the repository named by its argument,
 * or the GitError code, using the shared runner under narrow permissions.
 *
 * @module
 */

import { GitError, runGit } from "../../shared/git.ts";

try {
  const result = await runGit(["rev-parse", "HEAD"], { cwd: Deno.args[0] });
  await Deno.stdout.write(result.stdout);
} catch (error) {
  const code = error instanceof GitError ? error.code : "UNEXPECTED";
  await Deno.stdout.write(new TextEncoder().encode(code + "\n"));
}
