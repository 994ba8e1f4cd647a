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

import { dirname, join } from "node:path";
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
  /** Stops the server and removes its folder, blocking (for a process's last moment). */
  stopSync(): void;
}

// `command` with `args`, as `asUser` when given (through setpriv).
function commandOf(command: string, args: string[], asUser?: string): Deno.Command {
  const [program, argv] = asUser
    ? ["setpriv", [
      "--reuid",
      asUser,
      "--regid",
      asUser,
      "--init-groups",
      command,
      ...args,
    ]]
    : [command, args];
  return new Deno.Command(program, {
    args: argv,
    stdout: "piped",
    stderr: "piped",
    env: { LC_ALL: "C" },
  });
}

async function run(command: string, args: string[], options: { asUser?: string } = {}) {
  const out = await commandOf(command, args, options.asUser).output();
  if (!out.success) {
    throw new Error(`${command} failed: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** The role every test server has (the template's owner). */
const USER = "sourcegraph_test";

/** Runs `statements` in turn on a new connection to `url`. */
async function query(url: string, statements: string[]): Promise<void> {
  const pg = (await import("pg")).default;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * The data folder every server of this PostgreSQL starts from, and its
 * role's password: `initdb` (over a second of processor time, several on a
 * busy machine) runs once per PostgreSQL, user and options, for every test
 * process, and each server copies its result. The template is built in a
 * folder of its own and renamed into place, so a concurrent test process
 * sees a whole template or none; of two that build at once, one rename
 * wins and the other's build is removed.
 */
async function template(
  bin: string,
  options: { temp: string; asUser?: string },
): Promise<{ data: string; password: string }> {
  const asUser = options.asUser;
  const args = [
    "-U",
    USER,
    "--auth",
    "scram-sha-256",
    "--encoding",
    "UTF8",
    "--no-instructions",
    // A throwaway server (it runs with fsync off): nothing of initdb needs to reach the disk.
    "--no-sync",
    // WAL in 1 MiB segments, not 16: every server copies the template, and its first segment
    // was 16 of its 39 MiB (28 with these); a test writes far less WAL than a segment.
    "--wal-segsize=1",
  ];
  // The folder names the major version (`/usr/lib/postgresql/15/bin`): its data format.
  const key = encodeHex(
    new Uint8Array(
      await crypto.subtle.digest(
        "SHA-256",
        new TextEncoder().encode(JSON.stringify([bin, asUser ?? Deno.uid(), args])),
      ),
    ),
  ).slice(0, 16);
  const root = join(options.temp, `sg-pg-template-${key}`);
  const read = async () => ({
    data: join(root, "data"),
    password: (await Deno.readTextFile(join(root, "password"))).trim(),
  });
  const built = await read().catch(() => null);
  if (built !== null) return built;
  const build = await tempDir("sg-pg-template-build-");
  const password = encodeHex(crypto.getRandomValues(new Uint8Array(16)));
  await Deno.writeTextFile(join(build, "password"), `${password}\n`, { mode: 0o600 });
  if (asUser) await run("chown", ["-R", `${asUser}:${asUser}`, build]);
  await run(join(bin, "initdb"), [
    "-D",
    join(build, "data"),
    "--pwfile",
    join(build, "password"),
    ...args,
  ], { asUser });
  await Deno.rename(build, root).catch(() => removeDir(build));
  return await read();
}

/** Starts a private server; the caller stops it. */
export async function startPostgres(bin: string): Promise<PostgresServer> {
  const dir = await tempDir("sg-pg-");
  const asUser = Deno.uid() === 0 ? "postgres" : undefined;
  const data = join(dir, "data");
  const socketDir = join(dir, "socket");
  await Deno.mkdir(socketDir);
  if (asUser) await run("chown", ["-R", `${asUser}:${asUser}`, dir]);
  const initial = await template(bin, { temp: dirname(dir), asUser });
  // `cp -a` keeps the owner (the server refuses a data folder that is not its user's).
  await run("cp", ["-a", initial.data, data]);
  const port = freePort();
  const options =
    `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${socketDir} ` +
    // A throwaway server: nothing needs to reach the disk in order (or at all), and the tests'
    // databases are small.
    `-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=16MB ` +
    `-c max_connections=200`;
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
  // The template's password is the same for every copy: each server gets one of its own.
  const password = encodeHex(crypto.getRandomValues(new Uint8Array(16)));
  const url = `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`;
  try {
    await query(url.replace(`:${password}@`, `:${initial.password}@`), [
      `ALTER ROLE ${USER} PASSWORD '${password}'`,
    ]);
  } catch (error) {
    await halt().catch(() => {});
    await removeDir(dir);
    throw error;
  }
  return {
    url,
    port,
    async createDatabase(name: string) {
      if (!/^[a-z][a-z0-9_]{0,62}$/.test(name)) throw new Error(`bad database name ${name}`);
      await query(url, [`CREATE DATABASE ${name}`]);
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
    stopSync() {
      commandOf(join(bin, "pg_ctl"), ["-D", data, "-m", "fast", "-w", "stop"], asUser)
        .outputSync();
      try {
        Deno.removeSync(dir, { recursive: true });
      } catch { /* already gone */ }
    },
  };
}

let shared: Promise<PostgresServer> | null = null;

/**
 * The server every module of this test process shares, started by the first
 * that asks and stopped as the process exits. The suite runs a folder's
 * modules in groups, one process each (`tools/test_suite`): a server of
 * each module's own cost its folder copy, start and stop (about 0.7
 * processor-seconds and seconds of waiting on a busy machine) once per
 * module. Each case works in databases of its own: `createDatabase`
 * appends a number to the name, so two modules asking for the same name get
 * two databases. The server cannot be stopped or halted through it: a case
 * that takes the server away starts one of its own.
 */
export function sharedPostgres(bin: string): Promise<PostgresServer> {
  if (shared === null) {
    const starting = startPostgres(bin).then((server) => {
      globalThis.addEventListener("unload", () => server.stopSync());
      let created = 0;
      const refuse = () => Promise.reject(new Error("the shared server stays up: start one"));
      return {
        ...server,
        createDatabase: (name: string) => server.createDatabase(`${name}_${++created}`),
        stop: () => Promise.resolve(),
        halt: refuse,
        start: refuse,
        stopSync: () => {},
      };
    });
    shared = starting;
    // A start that failed is not kept: the next module asking tries again.
    starting.catch(() => {
      if (shared === starting) shared = null;
    });
  }
  return shared;
}
