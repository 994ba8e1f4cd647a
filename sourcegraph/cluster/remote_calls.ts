/**
 * Forwarded calls, client side: one POST to another replica's internal
 * listener (`http/internal_app.ts`) with the cluster secret, the caller the
 * receiving replica checked (never its token) and the call's request. The
 * answer is the call's result, or its error's code, message and hint, rethrown
 * here as the same `SourcegraphError`, so the edge renders the same text
 * whichever replica ran the call. Bodies are in V8's serialization format
 * (`node:v8`), which keeps what JSON would lose of a domain value (maps,
 * sets, byte arrays, `undefined`); only replicas that hold the cluster
 * secret send or read them.
 *
 * @module
 */

import { deserialize, serialize } from "node:v8";
import { SourcegraphError } from "../errors.ts";
import type { SyncOutcome } from "../git/repository_sync.ts";
import type { RoutedCall } from "../service/repository_router.ts";
import type { Replica } from "./cluster.ts";

/** The media type of forwarded calls and their answers (V8's serialization). */
export const CALL_CONTENT_TYPE = "application/x-sourcegraph-v8";

/** The path of forwarded calls on the internal listener. */
export const CALL_PATH = "/internal/v1/call";
/** The path of syncs asked of an owner. */
export const SYNC_PATH = "/internal/v1/sync";

/** How long a forwarded call may take (its own deadlines are shorter). */
const CALL_TIMEOUT_MS = 120_000;
/** How long a sync asked of an owner may take (a fetch's own limit is 10 minutes). */
const SYNC_TIMEOUT_MS = 11 * 60_000;

/** The replica did not answer, or no longer holds the repository: ask the next. */
export class ReplicaUnreachable extends Error {
  override readonly name = "ReplicaUnreachable";
}

/** A forwarded call on the wire. */
export interface ForwardedCall extends RoutedCall {
  /** The receiver may answer from a copy missing some retained versions. */
  partial: boolean;
}

/** Sends forwarded calls. */
export class RemoteCalls {
  #secret: string;
  #fetch: typeof fetch;

  /**
   * Calls authenticated with `secret`. `peerIdleMs` is how long the receiving
   * listeners keep an idle connection: pooled connections are dropped here
   * at half of it, so a call never goes out on one the peer is closing.
   */
  constructor(secret: string, options: { fetch?: typeof fetch; peerIdleMs?: number } = {}) {
    this.#secret = secret;
    if (options.fetch) this.#fetch = options.fetch;
    else {
      const client = Deno.createHttpClient({
        poolIdleTimeout: Math.max(100, Math.floor((options.peerIdleMs ?? 60_000) / 2)),
      });
      this.#fetch = (input, init) => fetch(input, { ...init, client });
    }
  }

  /** Runs `call` on `replica`; its result, its error, or `ReplicaUnreachable`. */
  call(replica: Replica, call: ForwardedCall): Promise<unknown> {
    return this.#post(replica, { path: CALL_PATH, body: call, what: call.method });
  }

  /** Asks owner `replica` to sync a repository now; its outcome, its error, or `ReplicaUnreachable`. */
  async sync(replica: Replica, repositoryId: number): Promise<SyncOutcome> {
    return await this.#post(replica, {
      path: SYNC_PATH,
      body: { repositoryId },
      what: "sync",
      timeoutMs: SYNC_TIMEOUT_MS,
    }) as SyncOutcome;
  }

  async #post(
    replica: Replica,
    at: { path: string; body: unknown; what: string; timeoutMs?: number },
  ): Promise<unknown> {
    let response: Response;
    try {
      response = await this.#fetch(`${replica.internalUrl.replace(/\/+$/, "")}${at.path}`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${this.#secret}`,
          "Content-Type": CALL_CONTENT_TYPE,
        },
        body: new Uint8Array(serialize(at.body)),
        signal: AbortSignal.timeout(at.timeoutMs ?? CALL_TIMEOUT_MS),
      });
    } catch {
      throw new ReplicaUnreachable(`${replica.name} did not answer`);
    }
    const answer = await response.arrayBuffer().then(
      (bytes) => deserialize(new Uint8Array(bytes)),
      () => null,
    ).catch(() => null) as
      | {
        result?: unknown;
        error?: { code: string; message: string; hint?: string };
        internal?: string;
      }
      | null;
    if (response.status === 200 && answer && "result" in answer) return answer.result;
    if (response.status === 200 && answer?.error) {
      const { code, message, hint } = answer.error;
      throw new SourcegraphError(code, message, { hint });
    }
    if (response.status === 500 && answer?.internal) {
      throw new Error(`a forwarded ${at.what} failed on ${replica.name} (${answer.internal})`);
    }
    throw new ReplicaUnreachable(`${replica.name} answered ${response.status}`);
  }
}
