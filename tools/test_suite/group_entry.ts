/**
 * The test module a group of modules runs as: it imports each module named
 * in the `TEST_SUITE_MODULES` environment variable (one path per line,
 * relative to the working folder), in order, so their tests register in one
 * isolate. The group then loads the module graph its modules share once,
 * instead of once per module in an isolate of its own. A module that cannot
 * load is named after {@linkcode GROUP_LOAD_FAILURE} and fails the process
 * before any test runs; the runner then runs the group again module by
 * module, where that module's own run reports why.
 *
 * @module
 */

import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { GROUP_LOAD_FAILURE } from "./module_groups.ts";

const listed = Deno.env.get("TEST_SUITE_MODULES") ?? "";
for (const path of listed.split("\n").filter((line) => line !== "")) {
  try {
    await import(pathToFileURL(resolve(path)).href);
  } catch (error) {
    console.error(`${GROUP_LOAD_FAILURE} ${path}`);
    throw error;
  }
}
