/**
 * Worker entry: prepares sources for the index run on the main thread. The
 * first message carries the project root; every later one a
 * {@linkcode PrepareRequest}, answered in order.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import type { ProjectRoot } from "../project/project_root.ts";
import { type PrepareRequest, prepareSource } from "./source_preparation.ts";

let root: ProjectRoot | null = null;

self.onmessage = (event: MessageEvent<{ root: ProjectRoot } | PrepareRequest>) => {
  const data = event.data;
  if ("root" in data) {
    root = data.root;
    return;
  }
  try {
    self.postMessage(prepareSource(root!, data));
  } catch {
    // Preparation never throws for a source problem (those are skips); an
    // unexpected failure is reported as an unreadable source.
    self.postMessage({ path: data.path, kind: "skipped", reason: "unreadable" });
  }
};
