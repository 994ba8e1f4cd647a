/**
 * Limits for anonymous callers, per client address: a token bucket of tool
 * calls per minute, where every call of a JSON-RPC batch counts, heavy calls
 * cost more (`callCost`), a call across repositories pays a unit more per
 * repository it searches (`repositoryCharge`, before it searches them) and
 * a body costs a unit per started 64 KiB (`bodyUnits`), and a cap on
 * requests in flight. Addresses
 * whose bucket is full again are forgotten, so the table stays small.
 *
 * @module
 */

import { SourcegraphError } from "../errors.ts";
import { singleRepository } from "../service/repository_pins.ts";
import type { AnonymousBudget } from "./edge_env.ts";

/**
 * What one tool call costs, by tool; anything else costs 1. A blame costs a
 * search's 5: like a search without an index it runs a Git process that
 * walks the file's history (up to 30 s), where a read is one blob lookup;
 * a history walks the same commits (with diffs for a followed file or a
 * line range, up to 20 s), so it costs as much.
 * A references page is a search plus up to 50 file parses: a search's 5.
 * A commit search walks commits (with patches for -S and -G) like a
 * history: a history's 5, and across repositories a unit per repository.
 * A definition parses the file and the modules its imports lead to, and may
 * ask the symbol index: a symbol lookup's 2.
 */
export const TOOL_COSTS: Readonly<Record<string, number>> = {
  search: 5,
  diff: 2,
  symbols: 2,
  blame: 5,
  history: 5,
  references: 5,
  commits: 5,
  definition: 2,
};

/**
 * What an anonymous page view costs: a blame page a blame's, a commits list
 * a history's and a commit page (a diff with its patches) as much; a search
 * or symbol lookup with a query what it costs on MCP; any other view 1.
 */
export function pageCost(path: string, query: { q?: string; repo?: string }): number {
  // The repository tab a page path names: the segment after its first "-".
  const tab = /^\/sourcegraph\/(?:[^/]+\/)+?-\/([a-z]+)/.exec(path)?.[1];
  if (tab === "blame") return TOOL_COSTS.blame;
  if (tab === "commits" || tab === "commit") return TOOL_COSTS.history;
  if (!query.q) return 1;
  if (path === "/sourcegraph/-/search") return query.repo ? TOOL_COSTS.search : FANOUT_SEARCH_COST;
  if (tab === "search") return TOOL_COSTS.search;
  return tab === "symbols" ? TOOL_COSTS.symbols : 1;
}

/** What a search across repositories costs before the repositories it searches. */
export const FANOUT_SEARCH_COST = 5;
/** What a symbol lookup across repositories costs before the repositories it looks in. */
export const FANOUT_SYMBOLS_COST = 2;
/** What each repository a call across repositories searches (or looks in) costs more. */
export const FANOUT_REPOSITORY_COST = 1;

/**
 * How a call across repositories pays for the repositories it searches:
 * `FANOUT_REPOSITORY_COST` units each from `budget` (RATE_LIMITED when the
 * bucket holds fewer); nothing for an authenticated request (no budget).
 */
export function repositoryCharge(
  budget: AnonymousBudget | null,
): { charge?: (repositories: number) => void } {
  if (budget === null) return {};
  return { charge: (repositories) => budget.spend(repositories * FANOUT_REPOSITORY_COST) };
}

// Whether a search's or lookup's arguments name one repository (as the tools route them).
function namesOneRepository(args: unknown): boolean {
  return singleRepository((args as { repo?: unknown } | undefined)?.repo) !== null;
}

/** The bytes of an anonymous body that cost one unit. */
export const BODY_UNIT_BYTES = 64 * 1024;

/** The units a body of `bytes` costs: one per started `BODY_UNIT_BYTES` (at least one). */
export function bodyUnits(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / BODY_UNIT_BYTES));
}

/** The cost of a parsed MCP body: the sum over its messages (a batch counts each). */
export function callCost(body: unknown): number {
  const messages = Array.isArray(body) ? body : [body];
  let total = 0;
  for (const message of messages) total += messageCost(message);
  return Math.max(1, total);
}

function messageCost(message: unknown): number {
  if (typeof message !== "object" || message === null) return 1;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== "tools/call" || typeof params !== "object" || params === null) return 1;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (name === "search" && !namesOneRepository(args)) return FANOUT_SEARCH_COST;
  if (name === "symbols" && !namesOneRepository(args)) return FANOUT_SYMBOLS_COST;
  if (name === "read_many") {
    const files = (args as { files?: unknown } | undefined)?.files;
    return Array.isArray(files) ? Math.max(1, Math.min(files.length, 10)) : 1;
  }
  return typeof name === "string" ? (TOOL_COSTS[name] ?? 1) : 1;
}

/** Anonymous limits per client address. */
export class RateLimiter {
  #perMinute: number;
  #concurrency: number;
  #buckets = new Map<string, { tokens: number; at: number }>();
  #inFlight = new Map<string, number>();

  #now: () => number;

  /**
   * `perMinute` call units per minute and `concurrency` requests in flight
   * per address; `now` (milliseconds, default `Date.now`) refills the buckets.
   */
  constructor(limits: { perMinute: number; concurrency: number; now?: () => number }) {
    this.#perMinute = limits.perMinute;
    this.#concurrency = limits.concurrency;
    this.#now = limits.now ?? Date.now;
  }

  /** Admits one request in flight from `client` (RATE_LIMITED otherwise); returns its release. */
  enter(client: string): () => void {
    const current = this.#inFlight.get(client) ?? 0;
    if (current >= this.#concurrency) {
      throw new SourcegraphError(
        "RATE_LIMITED",
        "too many anonymous requests in flight from this address; wait or authenticate",
      );
    }
    this.#inFlight.set(client, current + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#inFlight.get(client) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(client, left);
      else this.#inFlight.delete(client);
    };
  }

  /** Spends `cost` units of `client`'s bucket (RATE_LIMITED when it holds fewer). */
  spend(client: string, cost: number): void {
    if (cost <= 0) return;
    const now = this.#now();
    const bucket = this.#buckets.get(client) ?? { tokens: this.#perMinute, at: now };
    bucket.tokens = Math.min(
      this.#perMinute,
      bucket.tokens + ((now - bucket.at) * this.#perMinute) / 60_000,
    );
    bucket.at = now;
    if (bucket.tokens < cost) {
      this.#buckets.set(client, bucket);
      throw new SourcegraphError(
        "RATE_LIMITED",
        "too many anonymous calls; slow down or authenticate",
      );
    }
    bucket.tokens -= cost;
    this.#buckets.set(client, bucket);
    if (this.#buckets.size > 10_000) this.#forgetFull(now);
  }

  #forgetFull(now: number): void {
    for (const [client, bucket] of this.#buckets) {
      if (bucket.tokens + ((now - bucket.at) * this.#perMinute) / 60_000 >= this.#perMinute) {
        this.#buckets.delete(client);
      }
    }
    // Still too many (many addresses, all busy): forget the longest-known ones.
    for (const client of this.#buckets.keys()) {
      if (this.#buckets.size <= 10_000) break;
      this.#buckets.delete(client);
    }
  }
}
