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
