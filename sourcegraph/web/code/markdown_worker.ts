/**
 * The Markdown worker: one job at a time, `{ id, source, repo, commit, path }`
 * in, `{ id, answer }` out (the document's HTML, links pinned to the commit;
 * null when rendering threw). It runs off the service's main thread under a
 * heap limit, so a document built to be slow or large to render never holds
 * up other requests, and `markdown_renderer.ts` ends it when a job runs too
 * long or out of memory.
 *
 * @module
 */

import { parentPort } from "node:worker_threads";
import { documentLinks } from "./document_links.ts";
import { renderMarkdown } from "./markdown_render.ts";
import type { WORKER_READY, WorkerAnswer } from "../../workers/worker_jobs.ts";

/** A document the worker is given. */
export interface MarkdownJob {
  source: string;
  repo: string;
  commit: string;
  /** The document's path, which its relative links start from. */
  path: string;
}

const port = parentPort!;

port.on("message", (job: MarkdownJob & { id: number }) => {
  const { id, source, repo, commit, path } = job;
  let answer: string | null;
  try {
    const folder = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
    answer = renderMarkdown(source, { folder, resolve: documentLinks(repo, commit) });
  } catch {
    answer = null;
  }
  port.postMessage({ id, answer } satisfies WorkerAnswer<string>);
});

// Loaded: the jobs' time starts now.
port.postMessage({ ready: true } satisfies typeof WORKER_READY);
