/**
 * The feed: `changes` returns the pending page (the same one until its token
 * is acknowledged, whatever the repository does meanwhile) or builds a new
 * delivery from HEAD; `acknowledge` moves the checkpoint, idempotently. Every
 * operation runs serialized in-process and under the data folder's writer
 * lock, and persists before it answers.
 *
 * @module
 */

import { randomUUID } from "node:crypto";
import { utf8Length } from "../shared/text.ts";
import { CommittedTree } from "./committed_tree.ts";
import type { SourceConfig } from "./config.ts";
import { GitSourceError } from "./errors.ts";
import {
  ACK_HISTORY,
  type FeedState,
  FeedStateFile,
  type FileRecord,
  type PendingDelivery,
} from "./feed_state.ts";
import {
  type GitBatch,
  type GitBatchResult,
  gitBatchResult,
  gitBatchText,
  type GitUpdate,
} from "./protocol.ts";

/** Bytes kept free for the JSON-RPC envelope around a page's result. */
export const ENVELOPE_RESERVE = 128;

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The Git knowledge source of one configuration and data folder. */
export class GitKnowledgeSource {
  #config: SourceConfig;
  #state: FeedStateFile;
  #queue: Promise<unknown> = Promise.resolve();

  /** Binds a validated configuration. */
  constructor(config: SourceConfig) {
    this.#config = config;
    this.#state = new FeedStateFile(config.dataDirectory);
  }

  /** The current page: the pending one, or a new delivery from HEAD. */
  changes(): Promise<GitBatch> {
    return this.#serial(async (tree) => {
      const state = this.#state.load(this.#binding(tree));
      if (state.pending) return this.#page(state.pending);
      const head = await tree.head();
      // An unmoved HEAD is its own ancestor: no `merge-base` process for it.
      const last = state.head;
      if (last !== null && last !== head && !(await tree.isAncestor(last, head))) {
        throw new GitSourceError("reconciliation_required", "HEAD is not a fast-forward");
      }
      const pending = await this.#deliver(tree, state, head);
      state.pending = pending;
      this.#state.save(state);
      return this.#page(pending);
    });
  }

  /** Acknowledges a page token. */
  acknowledge(token: string): Promise<void> {
    return this.#serial((tree) => {
      const state = this.#state.load(this.#binding(tree));
      if (state.acknowledgedTokens.includes(token)) return Promise.resolve();
      const pending = state.pending;
      if (!pending) throw new GitSourceError("unknown_ack", "no page is pending");
      const page = this.#page(pending);
      if (page.token !== token) throw new GitSourceError("unknown_ack", "not the pending page");
      pending.offset += page.updates.length;
      state.acknowledgedTokens = [...state.acknowledgedTokens, token].slice(-ACK_HISTORY);
      if (pending.offset >= pending.updates.length) {
        state.head = pending.head;
        state.files = pending.files;
        delete state.pending;
      }
      this.#state.save(state);
      return Promise.resolve();
    });
  }

  #binding(tree: CommittedTree): string {
    return JSON.stringify({
      repository: tree.root,
      paths: this.#config.paths,
      limits: this.#config.limits,
    });
  }

  async #deliver(tree: CommittedTree, state: FeedState, head: string): Promise<PendingDelivery> {
    const entries = await tree.entries(head, this.#config.paths);
    const files: Record<string, FileRecord> = {};
    const updates: GitUpdate[] = [];
    for (const path of this.#config.paths) {
      const entry = entries.get(path);
      const blob = entry?.oid ?? null;
      const last = state.files[path];
      if (blob === (last?.blob ?? null)) {
        if (last) files[path] = last;
        continue;
      }
      const previous = last?.revision ?? null;
      let update: GitUpdate;
      if (entry) {
        const text = decode(path, await tree.blob(path, entry, this.#config.limits.maxFileBytes));
        update = {
          id: path,
          revision: head,
          previous,
          kind: "source",
          state: "active",
          text:
            `Committed source ${path} at revision ${head} (repository text, not a test or build result):\n${text}`,
        };
      } else {
        update = {
          id: path,
          revision: head,
          previous,
          kind: "source",
          state: "withdrawn",
          text:
            `Committed source ${path} was removed at revision ${head}; its earlier content is historical.`,
        };
      }
      // Every update must fit a page on its own; checked before anything is saved.
      const limit = this.#config.limits.maxBatchBytes;
      if (pageBytes({ token: pageToken(randomUUID(), 0), updates: [update] }, limit) > limit) {
        throw new GitSourceError("batch_too_large", tooLarge(path));
      }
      updates.push(update);
      files[path] = { blob, revision: head };
    }
    return { deliveryId: randomUUID(), head, files, updates, offset: 0 };
  }

  #page(pending: PendingDelivery): GitBatch {
    const token = pageToken(pending.deliveryId, pending.offset);
    const limit = this.#config.limits.maxBatchBytes;
    const updates: GitUpdate[] = [];
    // Exactly the bytes of JSON.stringify(gitBatchResult(page)) with every
    // text repeated: the frame for this count, plus each update's JSON and
    // its text block, and the commas between them.
    let updateBytes = 0;
    for (let i = pending.offset; i < pending.updates.length; i++) {
      if (updates.length === this.#config.limits.maxFiles) break;
      const update = pending.updates[i];
      const added = utf8Length(JSON.stringify(update)) + (updates.length > 0 ? 1 : 0) +
        utf8Length(JSON.stringify({ type: "text", text: update.text })) + 1;
      const total = frameBytes(token, updates.length + 1) + updateBytes + added + ENVELOPE_RESERVE;
      if (total > limit) break;
      updates.push(update);
      updateBytes += added;
    }
    if (updates.length === 0 && pending.offset < pending.updates.length) {
      // An update too large to repeat in a text block goes alone, its block
      // saying where the text is; one that does not fit even so cannot be sent.
      const alone = { token, updates: [pending.updates[pending.offset]] };
      if (pageBytes(alone, limit) > limit) {
        throw new GitSourceError("batch_too_large", tooLarge(alone.updates[0].id));
      }
      return alone;
    }
    return { token, updates };
  }

  /** The MCP result of a page this feed returned. */
  result(batch: GitBatch): GitBatchResult {
    return gitBatchResult(batch, {
      maxBytes: this.#config.limits.maxBatchBytes - ENVELOPE_RESERVE,
    });
  }

  #serial<T>(work: (tree: CommittedTree) => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      const lock = this.#state.lock();
      let tree: CommittedTree | undefined;
      try {
        tree = CommittedTree.open(this.#config.repository);
        return await work(tree);
      } finally {
        await tree?.close();
        lock.release();
      }
    };
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => {});
    return result;
  }
}

function pageToken(deliveryId: string, offset: number): string {
  return `${deliveryId}:${offset}`;
}

function frameBytes(token: string, count: number): number {
  return utf8Length(JSON.stringify({
    content: [{ type: "text", text: gitBatchText(count) }],
    structuredContent: { token, updates: [] },
  }));
}

/**
 * The page's byte count as the client receives it: the whole MCP result
 * (built for a page limit of `maxBatchBytes`, 512 KiB by default) plus the reserve.
 */
export function pageBytes(batch: GitBatch, maxBatchBytes = 512 * 1024): number {
  const result = gitBatchResult(batch, { maxBytes: maxBatchBytes - ENVELOPE_RESERVE });
  return utf8Length(JSON.stringify(result)) + ENVELOPE_RESERVE;
}

function tooLarge(path: string): string {
  return `the update of ${path} does not fit one page`;
}

function decode(path: string, bytes: Uint8Array): string {
  if (bytes.indexOf(0) !== -1) {
    throw new GitSourceError(
      "unsupported_file",
      `the committed file ${path} is binary (a NUL byte)`,
    );
  }
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new GitSourceError("unsupported_file", `the committed file ${path} is not valid UTF-8`);
  }
}
