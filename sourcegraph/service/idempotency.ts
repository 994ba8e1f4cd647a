/**
 * Idempotent requests, in one place: a request with an idempotency key is
 * run once; the same key with the same request (its fingerprint) gets the
 * first answer back; the same key with another request is
 * `IDEMPOTENCY_KEY_REUSED`. Answers are stored as the edge rendered them (an
 * opaque string), so a replay is byte for byte the first answer, across
 * restarts, for the store's retention.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * import { SqliteControlStore } from "../store/sqlite_control_store.ts";
 *
 * const folder = await Deno.makeTempDir();
 * const store = new SqliteControlStore(`${folder}/control.sqlite3`);
 * const records = new IdempotencyRecords(store);
 * let runs = 0;
 * const createKey = () => ({ repositoryId: 0, answer: `{"id":"key_${++runs}"}` });
 * const fingerprint = IdempotencyRecords.fingerprint("POST /keys", '{"name":"ci agent"}');
 * const request = { scope: "key", key: "k-1", fingerprint };
 * const first = await records.once(request, async () => createKey());
 * const again = await records.once(request, async () => createKey()); // replayed, not run
 * assert.deepStrictEqual([first.replayed, again.replayed, runs], [false, true, 1]);
 * assert.strictEqual(again.answer, first.answer);
 * const other = IdempotencyRecords.fingerprint("POST /keys", '{"name":"other"}');
 * const reused = records.once({ ...request, fingerprint: other }, async () => createKey());
 * await assert.rejects(reused, /different request/); // IDEMPOTENCY_KEY_REUSED
 * await store.close();
 * await Deno.remove(folder, { recursive: true });
 * ```
 *
 * @module
 */

import { createHash } from "node:crypto";
import { SourcegraphError } from "../errors.ts";
import type { ControlStore } from "../store/control_store.ts";

/** One idempotent request: what kind (`scope`), its key and its fingerprint. */
export interface IdempotentRequest {
  scope: string;
  key: string;
  /** Identifies the request: the same key with another fingerprint is refused. */
  fingerprint: string;
  /**
   * The repository it acts on: records written before fingerprints were kept
   * (`prepare` ones) match by this instead.
   */
  repositoryId?: number;
}

/** The stored answers of idempotent requests. */
export class IdempotencyRecords {
  #store: ControlStore;

  /** Records kept in `store`'s jobs table. */
  constructor(store: ControlStore) {
    this.#store = store;
  }

  /** The fingerprint of a request's route and body text. */
  static fingerprint(route: string, body: string): string {
    return createHash("sha256").update(`${route}\n${body}`).digest("hex");
  }

  /**
   * The stored answer of `request` (`replayed: true`), or the answer `run`
   * gives, stored first; `IDEMPOTENCY_KEY_REUSED` when the key belongs to
   * another request.
   *
   * @param request The scope, key and fingerprint.
   * @param run Does the work once and renders its answer.
   * @returns The answer and whether it is a replay.
   */
  async once(
    request: IdempotentRequest,
    run: () => Promise<{ repositoryId: number; answer: string }>,
  ): Promise<{ answer: string; replayed: boolean }> {
    const earlier = await this.replay(request);
    if (earlier !== null) return { answer: earlier, replayed: true };
    const done = await run();
    await this.#store.saveJob(`${request.scope}:${request.key}`, {
      repositoryId: done.repositoryId,
      result: done.answer,
      requestHash: request.fingerprint,
    });
    return { answer: done.answer, replayed: false };
  }

  /** The stored answer of `request`, or null when its key is new. */
  async replay(request: IdempotentRequest): Promise<string | null> {
    const earlier = await this.#store.job(`${request.scope}:${request.key}`);
    if (!earlier) return null;
    const same = earlier.requestHash === null
      ? request.repositoryId !== undefined && earlier.repositoryId === request.repositoryId
      : earlier.requestHash === request.fingerprint;
    if (!same) {
      throw new SourcegraphError(
        "IDEMPOTENCY_KEY_REUSED",
        "this Idempotency-Key was used for a different request",
      );
    }
    return earlier.result;
  }
}
