// The part of the AssemblyScript compiler API the build uses. The package's
// own declarations are not used: they add global types that clash with Deno's.

/** What a compile returns. */
export interface CompileResult {
  error: Error | null;
  stdout: { toString(): string };
  stderr: { toString(): string };
}

/** Runs the compiler with command-line arguments. */
export function main(
  argv: string[],
  options?: { writeFile?: (name: string, contents: Uint8Array | string, baseDir: string) => void },
): Promise<CompileResult>;

declare const asc: { main: typeof main };
export default asc;
