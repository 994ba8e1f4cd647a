/**
 * Content for the tests of rendered pages: Markdown an attacker commits, and
 * an image it links.
 *
 * @module
 */

/** A PNG of one pixel. */
export const PIXEL_PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

/** Markdown an attacker commits: every way to smuggle script or markup into a rendered page. */
export const HOSTILE_MARKDOWN = [
  "# Project <script>window.__pwned = 1</script>",
  '<img src=x onerror="window.__pwned = 2"> <svg onload="window.__pwned = 3"></svg>',
  "<!-- --><script>window.__pwned = 4</script><!-- -->",
  "[js](javascript:window.__pwned=5) [data](data:text/html,<script>window.__pwned=6</script>)",
  "![svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+) <iframe src=x></iframe>",
  "See [the guide](docs/guide.md), [the code](src/main.c#L2) and [docs](docs/).",
  "![logo](docs/logo.png)",
  "## Install",
  "[install](#install)",
  "",
].join("\n\n");

/**
 * Markdown built to be slow to render, each within every page limit (201
 * lines, lines under 256 KiB): `tables`, about 800 KB of one table whose
 * rows hold thousands of cells; `nesting`, block quotes and brackets nested
 * tens of thousands deep; `emphasis`, runs of `*a**a***` delimiters. `salt`
 * makes each a different blob.
 */
export function pathologicalMarkdown(
  salt = "",
): { tables: string; nesting: string; emphasis: string } {
  const cells = 2_000;
  const row = `|${"a|".repeat(cells)}`;
  const header = `|${salt}${"a|".repeat(cells)}`;
  const tables = [header, `|${"-|".repeat(cells)}`, ...Array(199).fill(row)].join("\n") + "\n";
  const nesting = [
    `${salt}${">".repeat(50_000)} x`,
    "[".repeat(100_000),
    `${"- ".repeat(10_000)}x`,
    `${"(".repeat(50_000)}${"*".repeat(50_000)}`,
    "",
  ].join("\n");
  const emphasis =
    Array.from({ length: 200 }, () => `${salt}${"*a**a***".repeat(400)}`).join("\n") +
    "\n";
  return { tables, nesting, emphasis };
}

// The folders of the README project below: `t*` hold tables, `e*` emphasis,
// `n*` nesting; several tables so the slowest kind has company.
const README_FOLDERS = ["t1", "t2", "t3", "e1", "n1"];

/**
 * The files of a project of pathological READMEs: `a.txt` ("alpha\n") for a
 * cheap token read, a tables README at the top, and one README in each
 * folder (by default five: three of tables, one of emphasis, one of
 * nesting; `folders` names fewer, `t*` tables, `e*` emphasis, `n*`
 * nesting), each a different blob.
 */
export function pathologicalReadmeFiles(
  options: { folders?: string[] } = {},
): Record<string, string> {
  const files: Record<string, string> = { "a.txt": "alpha\n", ".gitignore": ".sourcegraph/\n" };
  files["README.md"] = pathologicalMarkdown("top").tables;
  for (const folder of options.folders ?? README_FOLDERS) {
    const documents = pathologicalMarkdown(folder);
    files[`${folder}/README.md`] = folder.startsWith("t")
      ? documents.tables
      : folder.startsWith("e")
      ? documents.emphasis
      : documents.nesting;
  }
  return files;
}

/**
 * The pages rendering each README of `pathologicalReadmeFiles` made with the
 * same `folders`, the top one first, on a service at `serviceUrl` serving the
 * project as `local/project`.
 */
export function pathologicalReadmePages(
  serviceUrl: string,
  options: { folders?: string[] } = {},
): string[] {
  return ["", ...(options.folders ?? README_FOLDERS)].map((folder) =>
    `${serviceUrl}/sourcegraph/local/project${folder === "" ? "" : `/-/tree/main/${folder}`}`
  );
}
