/**
 * The test tree mirrors the code: every folder under `tests/sourcegraph/`
 * matches a folder of `sourcegraph/` that holds code of its own, so a test
 * sits beside the tests of the code it mainly tests and a moved or renamed
 * code folder shows here.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertEquals } from "../support/assert.ts";
import { removeDir, tempDir } from "../support/git_repo.ts";

const TESTS = fileURLToPath(new URL("./", import.meta.url));
const CODE = fileURLToPath(new URL("../../sourcegraph/", import.meta.url));

// Every folder below `root`, as paths relative to it ("a", "a/b", …), sorted.
async function folders(root: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(join(root, prefix))) {
    if (!entry.isDirectory) continue;
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    found.push(path, ...await folders(root, path));
  }
  return found.sort();
}

// Whether `folder` holds a .ts or .tsx file of its own (not only in subfolders).
async function holdsCode(folder: string): Promise<boolean> {
  try {
    for await (const entry of Deno.readDir(folder)) {
      if (entry.isFile && /\.tsx?$/.test(entry.name)) return true;
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  return false;
}

// The test folders under `tests` with no code folder of the same path under `code`.
async function unmatched(tests: string, code: string): Promise<string[]> {
  const missing: string[] = [];
  for (const folder of await folders(tests)) {
    if (!await holdsCode(join(code, folder))) missing.push(folder);
  }
  return missing;
}

Deno.test("test tree: every folder of tests/sourcegraph/ is a folder of sourcegraph/ with code", async () => {
  assertEquals(await unmatched(TESTS, CODE), []);
});

Deno.test("test tree: a test folder without code, or whose code folder holds only folders, is named", async () => {
  const parent = await tempDir("sg-test-tree-");
  try {
    const write = async (path: string) => {
      await Deno.mkdir(join(parent, path, ".."), { recursive: true });
      await Deno.writeTextFile(join(parent, path), "\n");
    };
    await write("code/a/a.ts");
    await write("code/a/b/page.tsx");
    await write("code/c/d/d.ts");
    await write("code/e/notes.md");
    for (const folder of ["a", "a/b", "a/x", "c", "c/d", "e"]) {
      await Deno.mkdir(join(parent, "tests", folder), { recursive: true });
    }
    assertEquals(await unmatched(join(parent, "tests"), join(parent, "code")), ["a/x", "c", "e"]);
  } finally {
    await removeDir(parent);
  }
});
