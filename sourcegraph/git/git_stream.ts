/**
 * A Git command whose output is read as it comes, for outputs too large to
 * hold (a log of every commit, patches): each chunk goes to a reader that
 * may stop Git early. The hardened runner's environment and leading options
 * apply; a deadline ends Git.
 *
 * @module
 */

import { concatBytes } from "../../shared/byte_queue.ts";
import { gitDeadline, GitError, gitLeadingArgs, killQuietly, spawnGit } from "../../shared/git.ts";

/** How one streamed command ended. */
export interface StreamEnd {
  /** The reader asked to stop (Git was ended). */
  stopped: boolean;
  /** The deadline ended Git before it finished. */
  timedOut: boolean;
}

/** Most bytes of Git's stderr kept (for the failure). */
const STDERR_BYTES = 64 * 1024;

/**
 * Runs Git with `args` in `cwd`, handing each stdout chunk to `read`; when
 * `read` returns false Git is ended. `stdin` is written and closed. Throws
 * GIT_FAILED when Git exits with an error on its own.
 */
export async function streamGit(
  args: readonly string[],
  options: {
    cwd: string;
    timeoutMs: number;
    read: (chunk: Uint8Array) => boolean;
    stdin?: Uint8Array;
  },
): Promise<StreamEnd> {
  const child = spawnGit([...await gitLeadingArgs(), ...args], {
    cwd: options.cwd,
    stdin: options.stdin ? "piped" : "null",
  });
  let stopped = false;
  let timedOut = false;
  const deadline = gitDeadline(options.timeoutMs, () => {
    timedOut = true;
    killQuietly(child);
  });
  if (options.stdin) void writeAll(child.stdin, options.stdin);
  const stderr = collectStderr(child.stderr);
  const reader = child.stdout.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (stopped || timedOut) continue;
      if (!options.read(value)) {
        stopped = true;
        killQuietly(child);
        await reader.cancel().catch(() => {});
        break;
      }
    }
  } catch {
    // the pipe closes under a kill
  } finally {
    deadline.clear();
  }
  const status = await child.status;
  const message = await stderr;
  if (status.spawnFailed) throw new GitError("GIT_UNAVAILABLE", "git could not be started");
  if (!stopped && !timedOut && status.code !== 0) {
    throw new GitError("GIT_FAILED", "git failed", { exitCode: status.code, stderr: message });
  }
  return { stopped, timedOut };
}

async function collectStderr(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size < STDERR_BYTES) chunks.push(value);
      size += value.length;
    }
  } catch {
    // closed under a kill
  }
  return new TextDecoder().decode(concatBytes(chunks));
}

async function writeAll(stdin: WritableStream<Uint8Array>, bytes: Uint8Array): Promise<void> {
  const writer = stdin.getWriter();
  try {
    await writer.write(bytes);
    await writer.close();
  } catch {
    // Git may exit without reading all of its input
  }
}
