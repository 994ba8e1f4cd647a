import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { configFromEnvironment, type SourceConfig } from "../../git_source/config.ts";
import { GitSourceError } from "../../git_source/errors.ts";
import { type GitBatch, GitBatchSchema, gitBatchText } from "../../git_source/protocol.ts";
import { checkRepository } from "../../git_source/repository_check.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { initializeMessage } from "../support/mcp_messages.ts";
import { createRepo, removeDir, tempDir, type TestRepo } from "../support/git_repo.ts";

const CHECKOUT = fileURLToPath(new URL("../..", import.meta.url));

/** How to launch one server: a command and its argv. */
interface Launch {
  command: string;
  args: string[];
  /** Extra environment beyond the three variables (the Deno entry needs its own). */
  env?: Record<string, string>;
}

let nodeExecutable: Promise<string> | undefined;

/** Node's executable (asked once for the file). */
function nodePath(): Promise<string> {
  nodeExecutable ??= (async () => {
    const out = await new Deno.Command("node", {
      args: ["-e", "process.stdout.write(process.execPath)"],
      stdout: "piped",
    }).output();
    assert(out.success, "node is installed");
    return new TextDecoder().decode(out.stdout);
  })();
  return nodeExecutable;
}

async function buildInstalledPackage(parent: string): Promise<string> {
  const build = join(parent, "build");
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "--allow-env",
      join(CHECKOUT, "git_source/build.ts"),
      build,
    ],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
  // Installed like a host does: the package copied to a folder outside the checkout.
  const installed = join(parent, "installed", "git-knowledge-source");
  await Deno.mkdir(installed, { recursive: true });
  for (const entry of Deno.readDirSync(build)) {
    await Deno.copyFile(join(build, entry.name), join(installed, entry.name));
  }
  return installed;
}

class FeedClient {
  #client: Client;
  #transport: StdioClientTransport;

  private constructor(client: Client, transport: StdioClientTransport) {
    this.#client = client;
    this.#transport = transport;
  }

  static async connect(launch: Launch, env: Record<string, string>): Promise<FeedClient> {
    const transport = new StdioClientTransport({
      command: launch.command,
      args: launch.args,
      env: { ...env, ...launch.env },
      stderr: "pipe",
    });
    const client = new Client({ name: "e2e", version: "0.0.0" });
    await client.connect(transport);
    return new FeedClient(client, transport);
  }

  async toolNames(): Promise<string[]> {
    return (await this.#client.listTools()).tools.map((tool: { name: string }) => tool.name);
  }

  /** Every tool parameter's description, by `tool.parameter` (empty when it has none). */
  async parameterDescriptions(): Promise<Record<string, string>> {
    const { tools } = await this.#client.listTools();
    return Object.fromEntries(
      tools.flatMap((
        tool: {
          name: string;
          inputSchema: { properties?: Record<string, { description?: string }> };
        },
      ) =>
        Object.entries(tool.inputSchema.properties ?? {}).map(([name, property]) => [
          `${tool.name}.${name}`,
          property.description ?? "",
        ])
      ),
    );
  }

  async changes(): Promise<GitBatch> {
    const result = await this.#client.callTool({ name: "git.changes", arguments: {} });
    assert(!result.isError, JSON.stringify(result));
    const batch = GitBatchSchema.parse(result.structuredContent);
    // A client that shows only text sees the count, then every update's text.
    assertEquals(result.content, [
      { type: "text", text: gitBatchText(batch.updates.length) },
      ...batch.updates.map((u) => ({ type: "text", text: u.text })),
    ]);
    return batch;
  }

  async acknowledge(token: string): Promise<void> {
    const result = await this.#client.callTool({ name: "git.acknowledge", arguments: { token } });
    assert(!result.isError, JSON.stringify(result));
    assertEquals(result.content, [{ type: "text", text: "Acknowledged" }]);
  }

  /** A call as it comes back, failures included. */
  async call(name: string, args: Record<string, unknown>): Promise<unknown> {
    return await this.#client.callTool({ name, arguments: args });
  }

  async close(): Promise<void> {
    await this.#client.close();
    await this.#transport.close();
  }
}

async function walk(launch: Launch, repo: TestRepo, data: string): Promise<void> {
  const env = {
    GIT_SOURCE_REPOSITORY: repo.path,
    GIT_SOURCE_PATHS: JSON.stringify(["notes.txt"]),
    PLUGIN_DATA: data,
  };
  let client = await FeedClient.connect(launch, env);
  try {
    assertEquals(await client.toolNames(), ["git.changes", "git.acknowledge"]);
    const described = await client.parameterDescriptions();
    assertEquals(Object.keys(described), ["git.acknowledge.token"]);
    assert(described["git.acknowledge.token"].includes("git.changes"), "the token says where from");
    // Bad arguments and unknown tools are answered in one line, not a JSON dump.
    assertEquals(await client.call("git.acknowledge", { token: "" }), {
      isError: true,
      content: [{
        type: "text",
        text:
          "git.acknowledge: invalid arguments: token: too small: expected string to have >=1 characters",
      }],
    });
    assertEquals(await client.call("git.change", {}), {
      isError: true,
      content: [{
        type: "text",
        text: 'unknown tool "git.change"; tools: git.changes, git.acknowledge',
      }],
    });
    const c1 = await repo.git("rev-parse", "HEAD");
    const first = await client.changes();
    assertEquals(first.updates.map((u) => [u.id, u.revision, u.previous, u.state]), [[
      "notes.txt",
      c1,
      null,
      "active",
    ]]);
    // A restart before the acknowledgement replays the identical page.
    await client.close();
    client = await FeedClient.connect(launch, env);
    assertEquals(await client.changes(), first);
    await client.acknowledge(first.token);
    const empty = await client.changes();
    assertEquals(empty.updates, []);
    await client.acknowledge(empty.token);
    await repo.write({ "notes.txt": "second\n" });
    const c2 = await repo.commit("second");
    const second = await client.changes();
    assertEquals(second.updates.map((u) => [u.revision, u.previous, u.state]), [[
      c2,
      c1,
      "active",
    ]]);
    assert(second.updates[0].text.endsWith("\nsecond\n"));
    await client.acknowledge(second.token);
    await repo.git("rm", "-q", "notes.txt");
    const c3 = await repo.commit("removed");
    const third = await client.changes();
    assertEquals(third.updates.map((u) => [u.revision, u.previous, u.state]), [[
      c3,
      c2,
      "withdrawn",
    ]]);
  } finally {
    await client.close();
  }
}

Deno.test("the built package runs under node outside the checkout with only the three variables", async () => {
  const parent = await tempDir("gs-e2e-");
  try {
    const installed = await buildInstalledPackage(parent);
    const names = [...Deno.readDirSync(installed)].map((e) => e.name).sort();
    assertEquals(names, [
      "README.md",
      "mcp.json",
      "package.json",
      "plugin.json",
      "protocol.mjs",
      "server.mjs",
    ]);
    const mcp = JSON.parse(await Deno.readTextFile(join(installed, "mcp.json")));
    assertEquals(mcp.mcpServers["git-knowledge-source"], {
      type: "stdio",
      command: "node",
      args: ["${PLUGIN_ROOT}/server.mjs"],
    });
    const repo = await createRepo({ "notes.txt": "first\n" }, { parent, name: "repo" });
    await walk(
      { command: await nodePath(), args: [join(installed, "server.mjs")] },
      repo,
      join(parent, "data"),
    );
    // The ./protocol export works for a Node consumer.
    const out = await new Deno.Command(await nodePath(), {
      args: [
        "--input-type=module",
        "-e",
        `import("${
          join(installed, "protocol.mjs")
        }").then((m) => console.log(m.GitBatchSchema.safeParse({token: "a:0", updates: []}).success))`,
      ],
      stdout: "piped",
    }).output();
    assertEquals(new TextDecoder().decode(out.stdout).trim(), "true");
  } finally {
    await removeDir(parent);
  }
});

// Two more starts of the entry show what a failure's blocks say: a binary file of the path list
// (before the walk, which removes notes.txt), and another path list for the folder the walk
// left to ["notes.txt"].
Deno.test("the deno run entry walks the same feed with narrow permissions; a failure's second block names the file it is about and says each thing once", async () => {
  const parent = await tempDir("gs-e2e-");
  try {
    const repo = await createRepo({
      "notes.txt": "first\n",
      "docs/logo.txt": new Uint8Array([1, 0, 2]),
    }, { parent, name: "repo" });
    const data = join(parent, "data");
    const launch: Launch = {
      command: Deno.execPath(),
      args: gitSourceDenoArgs(repo.path, data),
      env: Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : undefined,
    };
    const blocks = async (paths: string[], folder: string): Promise<string[]> => {
      const client = await FeedClient.connect({
        ...launch,
        args: gitSourceDenoArgs(repo.path, folder),
      }, {
        GIT_SOURCE_REPOSITORY: repo.path,
        GIT_SOURCE_PATHS: JSON.stringify(paths),
        PLUGIN_DATA: folder,
      });
      try {
        const result = await client.call("git.changes", {}) as {
          isError?: boolean;
          content: { text: string }[];
        };
        assert(result.isError, JSON.stringify(result));
        return result.content.map((block) => block.text);
      } finally {
        await client.close();
      }
    };
    assertEquals(await blocks(["notes.txt", "docs/logo.txt"], join(parent, "data-logo")), [
      "git.changes failed: unsupported_file",
      "The committed file docs/logo.txt is binary (a NUL byte). Only regular UTF-8 committed files are delivered: fix the file or remove its path from GIT_SOURCE_PATHS.",
    ]);
    await walk(launch, repo, data);
    const [code, why] = await blocks(["notes.txt", "other.txt"], data);
    assertEquals(code, "git.changes failed: configuration_changed");
    assertEquals(
      why,
      "The data folder belongs to another repository, path list or limit set. Restore that configuration, or use a new data folder.",
    );
  } finally {
    await removeDir(parent);
  }
});

/** The README's `deno run` command line for the Git knowledge source. */
function gitSourceDenoArgs(repository: string, data: string): string[] {
  return [
    "run",
    "--quiet",
    "--no-prompt",
    "--config",
    join(CHECKOUT, "deno.json"),
    `--allow-read=${repository},${data}`,
    `--allow-write=${data}`,
    "--allow-run=git",
    "--allow-env=GIT_SOURCE_REPOSITORY,GIT_SOURCE_PATHS,PLUGIN_DATA,PATH",
    join(CHECKOUT, "git_source/main.ts"),
  ];
}

/** The `deno run` entry as a host starts it: only `env` (plus PATH and DENO_DIR), piped stdio. */
function gitSourceCommand(
  paths: { repository: string; data: string },
  env: Record<string, string>,
): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: gitSourceDenoArgs(paths.repository, paths.data),
    clearEnv: true,
    env: {
      ...env,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  });
}

/** Why the start stops for `env` as main.ts decides it: the configuration's, then the repository's. */
async function startRefusal(env: Record<string, string>): Promise<string | null> {
  let config: SourceConfig;
  try {
    config = configFromEnvironment((name) => env[name]);
  } catch (error) {
    // main.ts prints a GitSourceError's message; anything else only as "invalid environment".
    assert(error instanceof GitSourceError, String(error));
    return error.message;
  }
  return (await checkRepository(config)).fatal;
}

// Two cases run the entry as a host does (one refused by the configuration, one by the
// repository check: exit code 1, the reason as the only stderr line, nothing on stdout); every
// case's reason is checked on the functions main.ts calls, which print it as that line.
Deno.test("a bad environment stops the start with one line on stderr", async () => {
  const parent = await tempDir("gs-e2e-");
  try {
    const data = join(parent, "data");
    const cases: [Record<string, string>, string][] = [
      [{}, "GIT_SOURCE_REPOSITORY is not set"],
      [{ GIT_SOURCE_REPOSITORY: parent }, "GIT_SOURCE_PATHS is not set"],
      [{ GIT_SOURCE_REPOSITORY: parent, GIT_SOURCE_PATHS: '["a"]' }, "PLUGIN_DATA is not set"],
      [
        { GIT_SOURCE_REPOSITORY: "relative", GIT_SOURCE_PATHS: '["a"]', PLUGIN_DATA: data },
        "absolute",
      ],
      [
        { GIT_SOURCE_REPOSITORY: parent, GIT_SOURCE_PATHS: "not json", PLUGIN_DATA: data },
        "JSON array",
      ],
      [{ GIT_SOURCE_REPOSITORY: parent, GIT_SOURCE_PATHS: '["../x"]', PLUGIN_DATA: data }, "paths"],
      [
        { GIT_SOURCE_REPOSITORY: parent, GIT_SOURCE_PATHS: '["a","a"]', PLUGIN_DATA: data },
        "duplicates",
      ],
      [{ GIT_SOURCE_REPOSITORY: parent, GIT_SOURCE_PATHS: "[]", PLUGIN_DATA: data }, "paths"],
      // The repository itself: missing, a file, a plain folder.
      [
        {
          GIT_SOURCE_REPOSITORY: join(parent, "gone"),
          GIT_SOURCE_PATHS: '["a"]',
          PLUGIN_DATA: data,
        },
        `GIT_SOURCE_REPOSITORY ${join(parent, "gone")} does not exist`,
      ],
      [
        {
          GIT_SOURCE_REPOSITORY: join(parent, "file"),
          GIT_SOURCE_PATHS: '["a"]',
          PLUGIN_DATA: data,
        },
        "is not a folder",
      ],
      [
        { GIT_SOURCE_REPOSITORY: parent, GIT_SOURCE_PATHS: '["a"]', PLUGIN_DATA: data },
        `GIT_SOURCE_REPOSITORY ${parent} is not a Git repository`,
      ],
    ];
    await Deno.writeTextFile(join(parent, "file"), "x");
    for (const [env, reason] of cases) {
      const refusal = await startRefusal(env);
      assert(refusal !== null && refusal.includes(reason), `${reason}: ${refusal}`);
      assert(!refusal.includes("\n"), refusal);
    }
    for (const [env, reason] of [cases[0], cases.at(-1)!]) {
      const child = gitSourceCommand({ repository: parent, data }, env).spawn();
      await child.stdin.close();
      const out = await child.output();
      const stderr = new TextDecoder().decode(out.stderr);
      assertEquals(out.code, 1, reason);
      assertEquals(stderr, `git-knowledge-source: ${await startRefusal(env)}\n`);
      assertEquals(out.stdout.length, 0);
    }
  } finally {
    await removeDir(parent);
  }
});

// One process: the request lines around one over the cap come first, then the repository goes.
Deno.test("paths HEAD does not hold are warned about at start; a request line over the cap is answered with an error and the lines around it are still served; a repository that goes away is logged once per reason", async () => {
  const parent = await tempDir("gs-e2e-");
  try {
    const repo = await createRepo({ "notes.txt": "first\n" }, { parent, name: "repo" });
    const data = join(parent, "data");
    const child = gitSourceCommand({ repository: repo.path, data }, {
      GIT_SOURCE_REPOSITORY: repo.path,
      GIT_SOURCE_PATHS: JSON.stringify(["notes.txt", "never.txt", "docs/later.md"]),
      PLUGIN_DATA: data,
    }).spawn();
    const writer = child.stdin.getWriter();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    const next = async (): Promise<Record<string, unknown>> => {
      while (!buffered.includes("\n")) {
        const { value, done } = await lines.read();
        if (done) throw new Error("the server ended");
        buffered += value;
      }
      const at = buffered.indexOf("\n");
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      return JSON.parse(line);
    };
    const encoder = new TextEncoder();
    const sendLine = (line: string) => writer.write(encoder.encode(`${line}\n`));
    const send = (message: unknown) => sendLine(JSON.stringify(message));
    await send(initializeMessage(1));
    await next();
    const ping = (id: number, padBytes: number) =>
      JSON.stringify({ jsonrpc: "2.0", id, method: "ping", params: { pad: "x".repeat(padBytes) } });
    for (
      const line of [
        ping(2, 0),
        ping(3, 5 * 1024 * 1024), // 5 MiB: served
        ping(4, 10 * 1024 * 1024), // 10 MiB: refused, and the server goes on
        ping(5, 0),
        "not json",
        ping(6, 0),
      ]
    ) {
      await sendLine(line);
    }
    const replies: { id?: unknown; result?: unknown; error?: { code: number } }[] = [];
    for (let i = 0; i < 6; i++) replies.push(await next());
    assertEquals(replies.filter((r) => r.result !== undefined).map((r) => r.id), [2, 3, 5, 6]);
    assertEquals(replies.filter((r) => r.error !== undefined).map((r) => [r.id, r.error!.code]), [
      [null, -32600],
      [null, -32700],
    ]);
    const changes = async (id: number) => {
      await send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "git.changes", arguments: {} },
      });
      return (await next()).result as { isError?: boolean; content: { text: string }[] };
    };
    assert(!(await changes(12)).isError);
    // The repository goes away: every call says unavailable, the log says why, once.
    await Deno.rename(repo.path, `${repo.path}-moved`);
    for (let id = 13; id < 16; id++) {
      const [code, why] = (await changes(id)).content.map((block) => block.text);
      assertEquals(code, "git.changes failed: unavailable");
      // What is unavailable and what to do, without the repository's path.
      assert(why.startsWith("The repository is unavailable. Restore the repository"), why);
      assert(!why.includes(parent), why);
    }
    await writer.close();
    await lines.cancel().catch(() => {});
    const out = await child.output();
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, stderr);
    const warned = stderr.split("\n").filter((line) => line.includes("not committed at HEAD"));
    assertEquals(warned.length, 1, stderr);
    assert(warned[0].includes("never.txt, docs/later.md"), warned[0]);
    assert(!warned[0].includes("notes.txt"), warned[0]);
    const unavailable = stderr.split("\n").filter((line) => line.includes("failed: unavailable"));
    assertEquals(unavailable.length, 1, stderr);
    assert(unavailable[0].includes("the repository is unavailable"), unavailable[0]);
  } finally {
    await removeDir(parent);
  }
});
