/**
 * A pathological history written with `git fast-import` as a stream, never
 * held whole: one file changed in many commits (two blobs alternate, so the
 * objects are the commits), a commit with a hostile author and a huge
 * subject, an octopus merge, and a commit replacing a small file by a huge
 * one, whose bytes are generated as they are written.
 */

/** What the history holds. */
export interface PathologicalHistory {
  /** Commits that change `hot.txt` (after the root). */
  hotCommits: number;
  /** Bytes of the huge `big.txt` (lines of 100 bytes). */
  bigBytes: number;
  /** Characters of the hostile commit's subject after its hostile prefix. */
  subjectChars: number;
  /** Parents of the octopus merge. */
  octopusParents: number;
}

/** The hostile author's name (Git forbids "<", ">" and newlines in a name). */
export const HOSTILE_NAME = `Mallory \u202Eevil\u202C \u0007\u001b[31m" onclick="x" & co`;
/** The hostile subject's first characters. */
export const HOSTILE_PREFIX = `<script>alert("s")</script>\u202Egnp.exe\u0008 `;
/** The 40 lines of `range.ts` before the hostile commit edits line 10. */
export const RANGE_LINES = Array.from({ length: 40 }, (_, i) => `export const v${i + 1} = ${i};`);

const encoder = new TextEncoder();

/**
 * Writes the history onto `refs/heads/main` of the repository at `path`
 * (its work tree then checked out), the commits' messages and the hot
 * commits' subjects `hot <n>`.
 */
export async function writePathologicalHistory(
  path: string,
  history: PathologicalHistory,
): Promise<void> {
  const child = new Deno.Command("git", {
    args: ["fast-import", "--quiet"],
    cwd: path,
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
    // glibc trims the heap after every commit otherwise: minutes of brk calls.
    env: {
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
      MALLOC_TOP_PAD_: String(256 * 1024 * 1024),
      MALLOC_TRIM_THRESHOLD_: "2147483647",
    },
  }).spawn();
  const writer = child.stdin.getWriter();
  let pending: string[] = [];
  let size = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    await writer.write(encoder.encode(pending.join("")));
    pending = [];
    size = 0;
  };
  const put = async (text: string) => {
    pending.push(text);
    size += text.length;
    if (size > 1024 * 1024) await flush();
  };
  const data = (text: string) => `data ${encoder.encode(text).length}\n${text}\n`;
  let time = 1_700_000_000;
  const who = (name = "Tester") => `${name} <t@example.com> ${time++} +0000`;
  const commit = (ref: string, message: string, extra = "") =>
    `commit ${ref}\n${extra}author ${who()}\ncommitter ${who()}\n${data(message)}`;

  await put(`blob\nmark :1\n${data("a\n")}blob\nmark :2\n${data("b\n")}`);
  await put(
    `${commit("refs/heads/main", "root")}M 100644 :1 hot.txt\n` +
      `M 100644 inline range.ts\n${data(RANGE_LINES.join("\n") + "\n")}` +
      `M 100644 inline big.txt\n${data("small\n")}\n`,
  );
  for (let i = 1; i <= history.hotCommits; i++) {
    await put(`${commit("refs/heads/main", `hot ${i}`)}M 100644 :${2 - (i % 2)} hot.txt\n\n`);
  }
  const subject = HOSTILE_PREFIX + "s".repeat(history.subjectChars);
  const message = `${subject}\n\nbody <img src=x onerror="alert(1)"> \u202Etxt.exe\n`;
  const edited = RANGE_LINES.with(9, "export const v10 = 'hostile';");
  await put(
    `commit refs/heads/main\nmark :20\nauthor ${who(HOSTILE_NAME)}\ncommitter ${who()}\n` +
      `${data(message)}M 100644 inline range.ts\n${data(edited.join("\n") + "\n")}\n`,
  );
  const sides = Array.from({ length: history.octopusParents - 1 }, (_, i) => i + 1);
  for (const side of sides) {
    await put(
      `${commit(`refs/heads/side${side}`, `side ${side}`, "")}from :20\n` +
        `M 100644 inline side${side}.txt\n${data(`side ${side}\n`)}\n`,
    );
    await put(`reset refs/tags/side${side}\nfrom refs/heads/side${side}\n\n`);
  }
  await put(
    `${commit("refs/heads/main", "octopus")}from :20\n` +
      sides.map((side) => `merge refs/tags/side${side}\n`).join("") +
      sides.map((side) => `M 100644 inline side${side}.txt\n${data(`side ${side}\n`)}`).join("") +
      "\n",
  );
  // The huge file: its bytes generated a chunk at a time.
  await put(
    `${commit("refs/heads/main", "replace big.txt by a huge file")}M 100644 inline big.txt\n`,
  );
  const lines = Math.floor(history.bigBytes / 100);
  await put(`data ${lines * 100}\n`);
  await flush();
  for (const chunk of bigChunks(lines)) await writer.write(chunk);
  await put("\n");
  for (const side of sides) {
    await put(`reset refs/heads/side${side}\nfrom 0000000000000000000000000000000000000000\n\n`);
  }
  await flush();
  await writer.close();
  const out = await child.output();
  if (!out.success) {
    throw new Error(`git fast-import failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  const reset = await new Deno.Command("git", {
    args: ["reset", "-q", "--hard", "refs/heads/main"],
    cwd: path,
    env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  }).output();
  if (!reset.success) throw new Error(new TextDecoder().decode(reset.stderr));
}

/** Lines of a huge file's chunk. */
const CHUNK_LINES = 10_000;

/**
 * The huge file's `lines` lines of 100 bytes (`0000000042 yyy…y`), a chunk
 * at a time: one buffer whose `y`s are written once, each line's number put
 * in place digit by digit (building a string a line took a processor-second
 * for 64 MiB). A chunk is handed out before the buffer is reused: `write`
 * is awaited between them.
 */
function* bigChunks(lines: number): Generator<Uint8Array> {
  const buffer = new Uint8Array(CHUNK_LINES * 100).fill("y".charCodeAt(0));
  for (let line = 0; line < CHUNK_LINES; line++) {
    buffer[line * 100 + 10] = " ".charCodeAt(0);
    buffer[line * 100 + 99] = "\n".charCodeAt(0);
  }
  for (let start = 0; start < lines; start += CHUNK_LINES) {
    const count = Math.min(CHUNK_LINES, lines - start);
    for (let line = 0; line < count; line++) {
      let value = start + line;
      for (let digit = 9; digit >= 0; digit--) {
        buffer[line * 100 + digit] = 48 + (value % 10);
        value = Math.floor(value / 10);
      }
    }
    yield buffer.subarray(0, count * 100);
  }
}
