import { join } from "node:path";
import { assert, assertEquals, assertIncludes } from "../support/assert.ts";
import {
  describeLocalProblem,
  inspectLocalRepository,
  serveCommandLine,
} from "../../sourcegraph/startup/local_repositories.ts";
import { composeServices } from "../../sourcegraph/service/compose.ts";
import { READ_PLUGIN_ROOM } from "../../sourcegraph/http/mcp/read_room.ts";
import { DEFAULT_PLUGIN_SETTINGS } from "../../sourcegraph/plugins/plugin_settings.ts";
import { readSettings } from "../../sourcegraph/settings.ts";
import { createRepo, git, removeDir, tempDir } from "../support/git_repo.ts";
import {
  freePort,
  type RunningService,
  startFailure,
  startService,
} from "../support/sourcegraph_service.ts";

// No case here searches: without the search index no sync starts an index builder process
// (about half a processor-second each) for the repositories the starts serve.
const NO_INDEX = { SOURCEGRAPH_SEARCH_INDEX: "false" };

/**
 * A later start's command line, served in process on the data folder a real start of `home`
 * left: what the start does with it (`serveCommandLine`, with the default settings and the
 * service's own unregistering), the registered names after it (sorted, as the repository list
 * gives them) and the lines the start logs.
 */
async function laterCommandLine(
  home: string,
  repositories: string[],
): Promise<{ names: string[]; lines: string[] }> {
  const read = readSettings(() => undefined, home);
  assert(read.ok);
  const services = composeServices({
    dataDir: join(home, ".sourcegraph"),
    publicRead: true,
    searchIndex: false,
    plugins: DEFAULT_PLUGIN_SETTINGS,
  }, { log: () => {}, pluginRoom: READ_PLUGIN_ROOM });
  try {
    const { lines, refusal } = await serveCommandLine(services.store, repositories, {
      cwd: home,
      shared: false,
      retain: read.settings.defaultRetain,
      syncMinutes: read.settings.syncMinutes,
      remove: (name) => services.admin.remove(name),
    });
    assertEquals(refusal, undefined);
    const names = services.store.repositories().map((repo) => repo.name).sort();
    return { names, lines };
  } finally {
    await services.close();
  }
}

// One bad path is given to a real start (it stops with that one line); every kind of bad path is
// told apart and described by the functions that start calls for the line.
Deno.test("start: a repository path that is missing, a file, a plain folder or on no branch stops the start with one line saying which", async () => {
  const parent = await tempDir("sg-start-");
  try {
    const home = await createRepo({ "a.txt": "home\n", ".gitignore": ".sourcegraph/\n" }, {
      parent,
      name: "home",
    });
    await Deno.writeTextFile(join(parent, "file.txt"), "x");
    await Deno.mkdir(join(parent, "plain"));
    const detached = await createRepo({ "d.txt": "d\n" }, { parent, name: "detached" });
    await detached.git("checkout", "-q", "--detach");
    for (
      const [name, expected] of [
        ["nothing-here", "does not exist"],
        ["file.txt", "is not a folder"],
        ["plain", "is not a Git repository"],
        ["detached", "no branch checked out"],
      ]
    ) {
      const found = await inspectLocalRepository(join(parent, name));
      assert(typeof found === "string", `${name}: ${JSON.stringify(found)}`);
      const described = describeLocalProblem(found);
      assertIncludes(described, expected);
      assert(!described.includes("\n"), described);
    }
    const plain = join(parent, "plain");
    const log = await startFailure(home.path, {}, { repositories: [plain] });
    // The failure's text starts with the log's first line.
    const lines = log.replace(/^service exited: /, "").split("\n")
      .filter((line) => line.includes(plain));
    assertEquals(lines, [
      `context-sourcegraph: ${plain} ${describeLocalProblem("not_a_repository")}`,
    ]);
  } finally {
    await removeDir(parent);
  }
});

Deno.test("start: a port in use is reported before anything is synced, suggesting --port", async () => {
  const parent = await tempDir("sg-start-");
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const home = await createRepo({ "a.txt": "home\n", ".gitignore": ".sourcegraph/\n" }, {
      parent,
      name: "home",
    });
    const log = await startFailure(home.path, {}, {
      port: (taken.addr as Deno.NetAddr).port,
    });
    assertIncludes(log, "the port is in use");
    assertIncludes(log, "--port");
    assert(!log.includes("synced"), `a repository was synced before the port was taken:\n${log}`);
  } finally {
    taken.close();
    await removeDir(parent);
  }
});

// The first start also shows: repositories named on the command line (a checkout on another
// branch, a bare repository) are served beside the configured one; the log names the real
// address; --port wins over SOURCEGRAPH_PORT.
Deno.test("start: each command line serves exactly the repositories it names; what sourcegraph.toml registers stays; two folders of one name get local/<name> and local/<name>-2 for good", async () => {
  const parent = await tempDir("sg-start-");
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const takenPort = (taken.addr as Deno.NetAddr).port;
  try {
    const home = await createRepo({ "a.txt": "home\n", ".gitignore": ".sourcegraph/\n" }, {
      parent,
      name: "home",
    });
    const configured = await createRepo({ "c.txt": "c\n" }, { parent, name: "configured" });
    await home.write({
      "sourcegraph.toml":
        `[[repositories]]\nname = "local/configured"\nsource = "${configured.path}"\npublic_read = true\nbranches = ["main"]\n`,
    });
    await home.commit("config");
    await Deno.mkdir(join(parent, "x"));
    await Deno.mkdir(join(parent, "y"));
    const first = await createRepo({ "x.txt": "x\n" }, { parent: join(parent, "x"), name: "name" });
    const second = await createRepo({ "y.txt": "y\n" }, {
      parent: join(parent, "y"),
      name: "name",
    });
    const third = await createRepo({ "t.txt": "t\n" }, { parent, name: "third" });
    const other = await createRepo({ "o.txt": "other\n" }, { parent, name: "other" });
    await other.git("checkout", "-q", "-b", "feature");
    const bare = join(parent, "mirror.git");
    await git(parent, ["clone", "-q", "--bare", other.path, bare]);
    const served = async (
      repositories: string[],
      options: {
        env?: Record<string, string>;
        check?: (service: RunningService) => Promise<void>;
      } = {},
    ): Promise<[string[], string[]]> => {
      const service = await startService(home.path, { ...NO_INDEX, ...options.env }, {
        repositories,
      });
      try {
        await options.check?.(service);
        const listed = await (await fetch(`${service.url}/sourcegraph/v1/repos`)).json();
        const names = listed.Repositories.map((repo: { Repo: string }) => repo.Repo);
        const read = await fetch(`${service.url}/sourcegraph/v1/repo/read?repo=local/configured`, {
          method: "POST",
          body: JSON.stringify({ Path: "c.txt" }),
        });
        const contents = [(await read.json()).Content];
        assertEquals(contents, ["c\n"], "the configured repository is served");
        return [names, service.log];
      } finally {
        await service.stop();
      }
    };
    // Both --port and SOURCEGRAPH_PORT: the flag's free port is taken, not the variable's busy one.
    let [names, log] = await served([first.path, second.path, third.path, other.path, bare], {
      env: { SOURCEGRAPH_PORT: String(takenPort) },
      check: async (service) => {
        assertEquals(await (await fetch(`${service.url}/healthz`)).text(), "ok\n");
        const log = service.log.join("\n");
        assert(!service.log.some((line) => line.includes(`:${takenPort}`)), log);
        const port = new URL(service.url).port;
        assert(
          service.log.some((line) => line.endsWith(`listening on http://127.0.0.1:${port}`)),
          log,
        );
        assert(!service.log.some((line) => line.includes("public URL")), log);
        assertIncludes(log, `connect an MCP client to ${service.url}/sourcegraph/mcp`);
        const listed = await (await fetch(`${service.url}/sourcegraph/v1/repos`)).json();
        const branch = listed.Repositories.find((repo: { Repo: string }) =>
          repo.Repo === "local/other"
        );
        assertEquals(branch.DefaultBranch, "feature");
        const read = await fetch(`${service.url}/sourcegraph/v1/repo/read?repo=local/mirror`, {
          method: "POST",
          body: JSON.stringify({ Path: "o.txt" }),
        });
        assertEquals((await read.json()).Content, "other\n");
      },
    });
    assertEquals(names, [
      "local/configured",
      "local/mirror",
      "local/name",
      "local/name-2",
      "local/other",
      "local/third",
    ]);
    assert(!log.some((line) => line.includes("unregistered")), log.join("\n"));
    // Later command lines, served in process on the same data as a start serves them: the first
    // folder named `name` is dropped; the second keeps its name.
    let later = await laterCommandLine(home.path, [second.path]);
    assertEquals(later.names, ["local/configured", "local/name-2"]);
    for (const gone of ["local/name", "local/third", "local/other", "local/mirror"]) {
      const line = `unregistered ${gone}: the command line no longer names it`;
      assert(later.lines.includes(line), later.lines.join("\n"));
    }
    later = await laterCommandLine(home.path, [first.path, second.path]);
    assertEquals(later.names, ["local/configured", "local/name", "local/name-2"]);
    // A real start again, with no path: sourcegraph.toml registers a repository, so the checkout
    // is not added and the command line's repositories go (the start logs each).
    [names, log] = await served([]);
    assertEquals(names, ["local/configured"]);
    for (const gone of ["local/name", "local/name-2"]) {
      assert(
        log.some((line) =>
          line.endsWith(`unregistered ${gone}: the command line no longer names it`)
        ),
        log.join("\n"),
      );
    }
  } finally {
    taken.close();
    await removeDir(parent);
  }
});

Deno.test("start: with no path the checkout is served, and a later command line naming other repositories replaces it; its first start also shows SOURCEGRAPH_PORT, the public URL and misspelled SOURCEGRAPH_ names", async (t) => {
  const parent = await tempDir("sg-start-");
  try {
    const home = await createRepo({ "a.txt": "home\n", ".gitignore": ".sourcegraph/\n" }, {
      parent,
      name: "home",
    });
    const other = await createRepo({ "o.txt": "o\n" }, { parent, name: "other" });
    const names = async (service: RunningService): Promise<string[]> => {
      const listed = await (await fetch(`${service.url}/sourcegraph/v1/repos`)).json();
      return listed.Repositories.map((repo: { Repo: string }) => repo.Repo);
    };
    // Only the variable names the port: the service listens there.
    const port = freePort();
    const first = await startService(home.path, {
      ...NO_INDEX,
      SOURCEGRAPH_PORT: String(port),
      SOURCEGRAPH_PUBLIC_URL: "https://sg.example.org",
      SOURCEGRAPH_SYNC_MINUTE: "3",
      SOURCEGRAPH_PLUGIN_TIMEOUT: "5s",
      SOURCEGRAPH_HAEDER_TIMEOUT: "5s",
      SOURCEGRAPH_SYNC_MINUTES: "7",
    }, { port, portFlag: false });
    try {
      await t.step("SOURCEGRAPH_PORT names the port when --port does not", async () => {
        assert(first.log.some((line) => line.includes(`127.0.0.1:${port}`)), first.log.join("\n"));
        assertEquals(await (await fetch(`${first.url}/healthz`)).text(), "ok\n");
      });
      await t.step("the public URL is logged and the MCP address starts with it", () => {
        assert(first.log.some((line) => line.endsWith("public URL https://sg.example.org")));
        assertIncludes(
          first.log.join("\n"),
          "connect an MCP client to https://sg.example.org/sourcegraph/mcp",
        );
      });
      await t.step(
        "a misspelled SOURCEGRAPH_ variable is named once with the nearest setting, and the start goes on",
        () => {
          const warnings = first.log.filter((line) => line.includes("is not a setting"));
          assertEquals(warnings.map((line) => line.replace(/^.*warning: /, "")).sort(), [
            "SOURCEGRAPH_HAEDER_TIMEOUT is not a setting (did you mean SOURCEGRAPH_HEADER_TIMEOUT?); it is ignored",
            "SOURCEGRAPH_PLUGIN_TIMEOUT is not a setting (did you mean SOURCEGRAPH_PLUGINS_TIMEOUT?); it is ignored",
            "SOURCEGRAPH_SYNC_MINUTE is not a setting (did you mean SOURCEGRAPH_SYNC_MINUTES?); it is ignored",
          ]);
        },
      );
      assertEquals(await names(first), ["local/home"]);
    } finally {
      await first.stop();
    }
    // Later command lines, served in process on the same data as a start serves them.
    const served = async (repositories: string[]) =>
      (await laterCommandLine(home.path, repositories)).names;
    assertEquals(await served([other.path]), ["local/other"]);
    assertEquals(await served([]), ["local/home"]);
    assertEquals(await served([home.path, other.path]), ["local/home", "local/other"]);
  } finally {
    await removeDir(parent);
  }
});
