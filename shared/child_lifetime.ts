/**
 * Child processes that die with the process that started them. Linux sends a
 * child its parent-death signal when the parent exits, however it exits
 * (SIGKILL included); util-linux's `setpriv --pdeathsig KILL` sets that
 * signal and then executes the real program in the same process. Deno has
 * no API for it, so a program that opts in with `bindChildrenToProcess()`
 * gets every child started through `childCommand` wrapped that way. The
 * signal follows the thread that spawned the child; Deno spawns on its main
 * thread, which lives as long as the process.
 *
 * @module
 */

const LAUNCHER = ["setpriv", "--pdeathsig", "KILL", "--"];
let launcher: readonly string[] = [];

/**
 * Wraps every later `childCommand` in `setpriv --pdeathsig KILL` when this
 * process may run `setpriv` and it works here; returns whether it does.
 *
 * @example
 * ```ts ignore
 * if (!bindChildrenToProcess()) console.error("children may outlive this process");
 * ```
 */
export function bindChildrenToProcess(): boolean {
  if (typeof Deno === "undefined") return false;
  try {
    if (Deno.permissions.querySync({ name: "run", command: "setpriv" }).state !== "granted") {
      return false;
    }
    const probe = new Deno.Command(LAUNCHER[0], {
      args: [...LAUNCHER.slice(1), "true"],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).outputSync();
    if (!probe.success) return false;
  } catch {
    return false;
  }
  launcher = LAUNCHER;
  return true;
}

let deno: string | null = null;

/**
 * The Deno executable child programs run with: this one when permitted, else `deno` on PATH.
 *
 * @example
 * ```ts ignore
 * const sandbox = new Deno.Command(denoProgram(), { args: ["run", "sandbox.ts"] });
 * ```
 */
export function denoProgram(): string {
  if (deno === null) {
    const self = Deno.execPath();
    deno = Deno.permissions.querySync({ name: "run", command: self }).state === "granted"
      ? self
      : "deno";
  }
  return deno;
}

/**
 * The command and arguments that start `program` with `args` (bound when opted in).
 *
 * @example
 * ```ts ignore
 * const { command, args } = childCommand("git", ["--version"]);
 * // ["setpriv", "--pdeathsig", "KILL", "git", "--version"] once bound, else git itself
 * const child = new Deno.Command(command, { args }).spawn();
 * ```
 */
export function childCommand(
  program: string,
  args: readonly string[],
): { command: string; args: string[] } {
  return launcher.length === 0
    ? { command: program, args: [...args] }
    : { command: launcher[0], args: [...launcher.slice(1), program, ...args] };
}
