/**
 * Path groups' folders and names are plain text: lookalikes of `.`, `..`
 * and `/`, white space at either end of a part, control, format and bidi
 * characters and lone surrogates are refused wherever registrations come
 * from (the admin API, its updates, `sourcegraph.toml`), with one line
 * naming the field.
 */

import { join } from "node:path";
import { assertEquals, assertIncludes } from "../../support/assert.ts";
import { createRepo } from "../../support/git_repo.ts";
import { adminFetch, withInProcessService, WORLD_TOKEN } from "../../support/in_process_service.ts";
import { startFailure } from "../../support/sourcegraph_service.ts";
import { applyConfigFile } from "../../../sourcegraph/startup/config_file.ts";
import {
  PATH_GROUP_NAME_RULE,
  PATH_GROUP_PATH_RULE,
} from "../../../sourcegraph/store/registration.ts";

// Each reads as another folder than it is, or as none.
const BAD_PATHS = [
  "\u2024\u2024", // one dot leaders: ".."
  "\uff0e\uff0e", // fullwidth full stops
  "docs\u2215private", // division slash
  "docs\uff0fprivate", // fullwidth solidus
  "docs/\u202eetavirp", // right-to-left override
  "\u200b", // zero-width space
  " ",
  "\u00a0", // no-break space
  ".. ",
  "\ufeff..", // byte order mark
  "docs/\ud800", // lone surrogate
  "docs/a\u0085b", // C1 control (next line)
  "docs/a\u007fb", // DEL
  "docs/a\u2028b", // line separator
  "docs/ private",
];
// Each would be shown to every reader as something else, or break a line.
const BAD_NAMES = [
  "a\nb",
  "a\u0000b",
  "\u202epublic",
  "\u200b",
  " ",
  " docs",
  "docs ",
  "\ud800",
  "a\u2028b",
  "",
  "x".repeat(65),
];
// Plain folders and names, kept as given.
const GOOD_GROUP = {
  name: "public docs ü",
  paths: ["docs/public", "docs/my folder", "docs/caf\u0065\u0301", "docs/...", "docs/ünï"],
};

Deno.test("path groups: lookalike, invisible and malformed folders and names are refused by the admin API and its updates, naming the field", async () => {
  await withInProcessService(async ({ handle, store }) => {
    const admin = adminFetch(handle, WORLD_TOKEN);
    const register = (group: { name: string; paths: string[] }, key: string) =>
      admin("POST", "/repos", {
        body: {
          name: "org/mono",
          source: "/nowhere",
          public_read: true,
          path_groups: [group],
          policy: { branches: ["main"] },
        },
        key,
      });
    const cases: [{ name: string; paths: string[] }, string][] = [
      ...BAD_PATHS.map((path): [{ name: string; paths: string[] }, string] => [
        { name: "g", paths: ["docs", path] },
        `invalid field path_groups.0.paths.1: ${PATH_GROUP_PATH_RULE}`,
      ]),
      ...BAD_NAMES.map((name): [{ name: string; paths: string[] }, string] => [
        { name, paths: ["docs"] },
        `invalid field path_groups.0.name: ${PATH_GROUP_NAME_RULE}`,
      ]),
    ];
    for (const [i, [group, message]] of cases.entries()) {
      const shown = JSON.stringify(group);
      const refused = await register(group, `reg-text-${i}`);
      assertEquals([refused.status, await refused.json()], [400, {
        code: "INVALID_REQUEST",
        message,
      }], shown);
      const patched = await admin("PATCH", "/repo?repo=org/open", {
        body: { path_groups: [group] },
      });
      assertEquals([patched.status, await patched.json()], [400, {
        code: "INVALID_REQUEST",
        message,
      }], shown);
    }
    assertEquals(store.repository("org/mono"), null);
    assertEquals(store.repository("org/open")!.pathGroups, []);
    const accepted = await register(GOOD_GROUP, "reg-text-good");
    assertEquals(accepted.status, 202, await accepted.clone().text());
    assertEquals((await accepted.json()).repo.path_groups, [GOOD_GROUP]);
  });
});

Deno.test("path groups: sourcegraph.toml refuses the same folders and names with one line naming the field", async () => {
  await withInProcessService(async ({ store, parent }) => {
    const config = join(parent, "sourcegraph.toml");
    const apply = async (group: { name: string; paths: string[] }) => {
      await Deno.writeTextFile(
        config,
        `[[repositories]]\nname = "org/mono"\nsource = "/nowhere"\nbranches = ["main"]\n` +
          `path_groups = [{ name = ${tomlString(group.name)}, paths = [${
            group.paths.map(tomlString).join(", ")
          }] }]\n`,
      );
      return await applyConfigFile(config, store).then((added) => added.join(), (e) => e.message);
    };
    // TOML itself has no way to write a lone surrogate: the parser refuses the escape.
    const unwritable = "sourcegraph.toml is invalid: Invalid TOML document: invalid unicode escape";
    for (const path of BAD_PATHS) {
      assertEquals(
        await apply({ name: "g", paths: ["docs", path] }),
        path.isWellFormed()
          ? `sourcegraph.toml is invalid: repositories.0.path_groups.0.paths.1: ${PATH_GROUP_PATH_RULE}`
          : unwritable,
        JSON.stringify(path),
      );
    }
    for (const name of BAD_NAMES) {
      assertEquals(
        await apply({ name, paths: ["docs"] }),
        name.isWellFormed()
          ? `sourcegraph.toml is invalid: repositories.0.path_groups.0.name: ${PATH_GROUP_NAME_RULE}`
          : unwritable,
        JSON.stringify(name),
      );
    }
    assertEquals(store.repository("org/mono"), null);
    assertEquals(await apply(GOOD_GROUP), "org/mono");
    assertEquals(store.repository("org/mono")!.pathGroups, [GOOD_GROUP]);
  }, { repositories: [] });
});

// A TOML basic string holding `text`: every character but printable ASCII
// escaped (TOML allows no raw control character, and no escape of a lone
// surrogate).
function tomlString(text: string): string {
  let quoted = "";
  for (const character of text) {
    const code = character.codePointAt(0)!;
    quoted += code >= 0x20 && code < 0x7f && character !== '"' && character !== "\\"
      ? character
      : code > 0xffff
      ? `\\U${code.toString(16).padStart(8, "0")}`
      : `\\u${code.toString(16).padStart(4, "0")}`;
  }
  return `"${quoted}"`;
}

Deno.test("path groups: a group name with a bidi override in sourcegraph.toml stops the real start with one line", async () => {
  await withInProcessService(async ({ parent }) => {
    const home = await createRepo({ "a.txt": "a\n", ".gitignore": ".sourcegraph/\n" }, {
      parent,
      name: "home",
    });
    await Deno.writeTextFile(
      join(home.path, "sourcegraph.toml"),
      `[[repositories]]\nname = "org/app"\nsource = ${JSON.stringify(home.path)}\n` +
        `branches = ["main"]\npath_groups = [{ name = "\\u202Epublic", paths = ["docs"] }]\n`,
    );
    const refused = await startFailure(home.path);
    const lines = refused.split("\n").filter((line) => line.includes("sourcegraph.toml"));
    assertEquals(lines.length, 1, refused);
    assertIncludes(
      lines[0],
      `sourcegraph.toml is invalid: repositories.0.path_groups.0.name: ${PATH_GROUP_NAME_RULE}`,
    );
  }, { repositories: [] });
});
