/**
 * Spawns Deno programs as real subprocesses with explicit narrow permission
 * flags, and reads their output line by line.
 *
 * @module
 */

import { fileURLToPath } from "node:url";

/** Narrow Deno permissions for a spawned program. */
export interface ProgramPermissions {
  /** Paths for --allow-read (`true`: unscoped). */
  read?: string[] | true;
  /** Paths for --allow-write (`true`: unscoped). */
  write?: string[] | true;
  /** Programs for --allow-run. */
  run?: string[];
  /** Variables for --allow-env. */
  env?: string[];
  /** --allow-sys values. */
  sys?: string[];
  /** Hosts for --allow-net. */
  net?: string[];
  /** Extra environment for the child (the environment is otherwise cleared to PATH/HOME). */
  childEnv?: Record<string, string>;
}

/** Builds the `--allow-*` flags for the given permissions; never `-A`. */
export function permissionFlags(permissions: ProgramPermissions): string[] {
  const flags: string[] = [];
  const add = (name: string, values: string[] | true | undefined) => {
    if (values === true) flags.push(`--allow-${name}`);
    else if (values && values.length > 0) flags.push(`--allow-${name}=${values.join(",")}`);
  };
  add("read", permissions.read);
  add("write", permissions.write);
  add("run", permissions.run);
  add("env", permissions.env);
  add("sys", permissions.sys);
  add("net", permissions.net);
  return flags;
}

/** Spawns `deno run` on a script in tests/support with piped stdio. */
export function spawnHelper(
  script: string,
  args: string[],
  permissions: ProgramPermissions,
): Deno.ChildProcess {
  const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
  return spawnDeno(path, args, permissions);
}

/** Spawns `deno run --quiet --no-prompt <flags> <script> <args>` with piped stdio. */
export function spawnDeno(
  scriptPath: string,
  args: string[],
  permissions: ProgramPermissions,
  options: { cwd?: string } = {},
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", ...permissionFlags(permissions), scriptPath, ...args],
    cwd: options.cwd,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/",
      NO_COLOR: "1",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
      ...permissions.childEnv,
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/**
 * Starts `count` copies of helper `script` at once, reading and writing only
 * `dir`, and returns the last line each printed (processes racing for one file).
 */
export async function lastLinesTogether(
  script: string,
  args: string[],
  options: { count: number; dir: string },
): Promise<(string | null)[]> {
  const permissions = { read: [options.dir], write: [options.dir] };
  const children = Array.from(
    { length: options.count },
    () => spawnHelper(script, args, permissions),
  );
  return await Promise.all(children.map(async (child) => {
    let last: string | null = null;
    for (let line = await readLine(child); line !== null; line = await readLine(child)) last = line;
    await child.status;
    return last;
  }));
}

const lineReaders = new WeakMap<Deno.ChildProcess, LineReader>();

/**
 * How long a line may take before the wait fails: a guard against a child
 * that hangs, not a time budget, so generous enough for a child on a
 * processor-bound machine (the suite runs modules side by side).
 */
const LINE_GUARD_MS = 180_000;

/** Reads the next stdout line of a spawned child (without the LF), or null at EOF. */
export function readLine(
  child: Deno.ChildProcess,
  timeoutMs = LINE_GUARD_MS,
): Promise<string | null> {
  let reader = lineReaders.get(child);
  if (!reader) {
    reader = new LineReader(child.stdout);
    lineReaders.set(child, reader);
  }
  return reader.next(timeoutMs);
}

/** Reads LF-terminated lines from a byte stream. */
export class LineReader {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffer = "";
  #decoder = new TextDecoder();

  /** Wraps a byte stream. */
  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  /** The next line, or null at EOF; rejects after `timeoutMs`. */
  async next(timeoutMs = LINE_GUARD_MS): Promise<string | null> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const newline = this.#buffer.indexOf("\n");
      if (newline !== -1) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        return line;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error("timed out waiting for a line");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("timed out waiting for a line")), remaining);
      });
      try {
        const { done, value } = await Promise.race([this.#reader.read(), timeout]);
        if (done) {
          if (this.#buffer.length === 0) return null;
          const rest = this.#buffer;
          this.#buffer = "";
          return rest;
        }
        this.#buffer += this.#decoder.decode(value, { stream: true });
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /** Releases the stream. */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}
