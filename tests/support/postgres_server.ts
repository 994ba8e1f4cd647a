/**
 * A private PostgreSQL server for tests (Debian's `postgresql`; `.ci/run`
 * installs it): `initdb` into a temporary folder, then `postgres` on a free
 * loopback port with its socket in that folder, password (SCRAM) logins for
 * one generated user, nothing else listening. PostgreSQL refuses to run as
 * root, so under root the server runs as the `postgres` user through
 * util-linux's `setpriv`, and the folder is handed to that user. Where no
 * server is found the tests that need it are ignored, unless
 * `SOURCEGRAPH_REQUIRE_SYSTEM_TOOLS=1` (set by `.ci/run`) makes that a
 * failure.
 *
 * @module
 */

import { join } from "node:path";
import { encodeHex } from "../../shared/text.ts";
import { removeDir, tempDir } from "./git_repo.ts";
import { freePort } from "./sourcegraph_service.ts";
import { systemTool } from "./system_tools.ts";

const VERSIONS = ["17", "16", "15"];

/** The folder of `initdb`, `pg_ctl` and `postgres`, or null (thrown in CI). */
export function postgresBin(): string | null {
  const initdb = systemTool(
    [...VERSIONS.map((version) => `/usr/lib/postgresql/${version}/bin/initdb`)],
    { what: "PostgreSQL", install: "apt-get install postgresql" },
  );
  return initdb === null ? null : initdb.slice(0, -"/initdb".length);
}

/** A running private server. */
export interface PostgresServer {
  /** `postgres://user:password@127.0.0.1:port/postgres` */
  url: string;
  port: number;
  /** Stops the server (fast shutdown) and removes its folder. */
  stop(): Promise<void>;
  /** Stops the server, keeping its folder, so `start` can bring it back. */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port. */
  start(): Promise<void>;
  /** Creates a new, empty database; its URL. */
  createDatabase(name: string): Promise<string>;
}

async function run(command: string, args: string[], options: { asUser?: string } = {}) {
  const [program, argv] = options.asUser
    ? ["setpriv", [
      "--reuid",
      options.asUser,
      "--regid",
      options.asUser,
      "--init-groups",
      command,
      ...args,
    ]]
    : [command, args];
  const out = await new Deno.Command(program, {
    args: argv,
    stdout: "piped",
    stderr: "piped",
    env: { LC_ALL: "C" },
  }).output();
  if (!out.success) {
    throw new Error(`${command} failed: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** Starts a private server; the caller stops it. */
export async function startPostgres(bin: string): Promise<PostgresServer> {
  const dir = await tempDir("sg-pg-");
  const asUser = Deno.uid() === 0 ? "postgres" : undefined;
  const data = join(dir, "data");
  const socketDir = join(dir, "socket");
  await Deno.mkdir(socketDir);
  const password = encodeHex(crypto.getRandomValues(new Uint8Array(16)));
  const user = "sourcegraph_test";
  await Deno.writeTextFile(join(dir, "password"), `${password}\n`, { mode: 0o600 });
  if (asUser) await run("chown", ["-R", `${asUser}:${asUser}`, dir]);
  await run(join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    user,
    "--pwfile",
    join(dir, "password"),
    "--auth",
    "scram-sha-256",
    "--encoding",
    "UTF8",
    "--no-instructions",
    // A throwaway server (it runs with fsync off): nothing of initdb needs to reach the disk.
    "--no-sync",
  ], { asUser });
  const port = freePort();
  const options =
    `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${socketDir} ` +
    `-c fsync=off -c max_connections=200`;
  const start = () =>
    run(join(bin, "pg_ctl"), [
      "-D",
      data,
      "-o",
      options,
      "-l",
      join(dir, "server.log"),
      "-w",
      "start",
    ], {
      asUser,
    });
  const halt = () => run(join(bin, "pg_ctl"), ["-D", data, "-m", "fast", "-w", "stop"], { asUser });
  try {
    await start();
  } catch (error) {
    const log = await Deno.readTextFile(join(dir, "server.log")).catch(() => "");
    await removeDir(dir);
    throw new Error(`${(error as Error).message}\n${log}`);
  }
  const url = `postgres://${user}:${password}@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async createDatabase(name: string) {
      if (!/^[a-z][a-z0-9_]{0,62}$/.test(name)) throw new Error(`bad database name ${name}`);
      const pg = (await import("pg")).default;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url.replace(/\/postgres$/, `/${name}`);
    },
    async start() {
      await start();
    },
    async halt() {
      await halt();
    },
    async stop() {
      await halt().catch(() => {});
      await removeDir(dir);
    },
  };
}
