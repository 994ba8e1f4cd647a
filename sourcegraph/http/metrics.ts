/**
 * Prometheus text metrics: requests by tool and code, request latency
 * histograms by tool, connection counters of the front (and of a replica's
 * internal listener), the pages' Markdown renderer (renders, in flight,
 * cache hits, refusals), repositories by sync
 * state, and the sync state of each repository the caller may see (an
 * anonymous scrape never names a private repository).
 *
 * @module
 */

import type { FrontDoorStats } from "./front_door.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";

/** What the pages' Markdown renderer reports. */
export interface MarkdownStats {
  renders: number;
  inFlight: number;
  waiting: number;
  cacheHits: number;
  cacheBytes: number;
  refused: Record<string, number>;
}

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** In-process counters. */
export class Metrics {
  #front: (() => FrontDoorStats) | null = null;
  #internalFront: (() => FrontDoorStats) | null = null;
  #markdown: (() => MarkdownStats) | null = null;
  #searchesShared = 0;
  #requests = new Map<string, number>();
  #latency = new Map<string, { buckets: number[]; sum: number; count: number }>();

  /** Records one tool call. */
  record(tool: string, outcome: { code: string; seconds: number }): void {
    const { code, seconds } = outcome;
    const key = `${tool}\u0000${code}`;
    this.#requests.set(key, (this.#requests.get(key) ?? 0) + 1);
    let histogram = this.#latency.get(tool);
    if (!histogram) {
      histogram = { buckets: BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.#latency.set(tool, histogram);
    }
    BUCKETS.forEach((bound, i) => {
      if (seconds <= bound) histogram!.buckets[i]++;
    });
    histogram.sum += seconds;
    histogram.count++;
  }

  /** Counts a search answered by an identical one already running. */
  searchShared(): void {
    this.#searchesShared++;
  }

  /** Adds the front's connection counters to the exposition. */
  watchFront(stats: () => FrontDoorStats): void {
    this.#front = stats;
  }

  /** Adds the connection counters of a replica's internal listener to the exposition. */
  watchInternalFront(stats: () => FrontDoorStats): void {
    this.#internalFront = stats;
  }

  /** Adds the Markdown renderer's counters to the exposition. */
  watchMarkdown(stats: () => MarkdownStats): void {
    this.#markdown = stats;
  }

  /** Renders the exposition text; per-repository series only for repositories `visible` admits. */
  render(store: ControlStore, visible: (repo: RepositoryRecord) => boolean): string {
    return [
      ...this.#requestLines(),
      ...this.#frontLines(),
      ...this.#internalFrontLines(),
      ...this.#markdownLines(),
      "# HELP sourcegraph_search_shared_total Searches answered by an identical one already running.",
      "# TYPE sourcegraph_search_shared_total counter",
      `sourcegraph_search_shared_total ${this.#searchesShared}`,
      ...repositoryLines(store, visible),
    ].join("\n") + "\n";
  }

  #requestLines(): string[] {
    const out: string[] = [
      "# HELP sourcegraph_requests_total Tool calls by tool and result code.",
      "# TYPE sourcegraph_requests_total counter",
    ];
    for (const [key, count] of this.#requests) {
      const [tool, code] = key.split("\u0000");
      out.push(`sourcegraph_requests_total{tool="${tool}",code="${code}"} ${count}`);
    }
    out.push(
      "# HELP sourcegraph_request_seconds Tool call latency.",
      "# TYPE sourcegraph_request_seconds histogram",
    );
    for (const [tool, histogram] of this.#latency) {
      BUCKETS.forEach((bound, i) =>
        out.push(
          `sourcegraph_request_seconds_bucket{tool="${tool}",le="${bound}"} ${
            histogram.buckets[i]
          }`,
        )
      );
      out.push(`sourcegraph_request_seconds_bucket{tool="${tool}",le="+Inf"} ${histogram.count}`);
      out.push(`sourcegraph_request_seconds_sum{tool="${tool}"} ${histogram.sum}`);
      out.push(`sourcegraph_request_seconds_count{tool="${tool}"} ${histogram.count}`);
    }
    return out;
  }

  #frontLines(): string[] {
    if (!this.#front) return [];
    const front = this.#front();
    return [
      ...connectionLines("sourcegraph_connections", front, {
        open: "Client connections open now.",
        total: "Client connections by outcome.",
      }),
      "# HELP sourcegraph_connections_resumed_total Connections moved to a new HTTP server between requests.",
      "# TYPE sourcegraph_connections_resumed_total counter",
      `sourcegraph_connections_resumed_total ${front.resumed}`,
      "# HELP sourcegraph_requests_in_flight Requests being served now.",
      "# TYPE sourcegraph_requests_in_flight gauge",
      `sourcegraph_requests_in_flight ${front.inFlight}`,
    ];
  }

  #internalFrontLines(): string[] {
    if (!this.#internalFront) return [];
    return connectionLines("sourcegraph_internal_connections", this.#internalFront(), {
      open: "Connections to the internal listener open now.",
      total: "Connections to the internal listener by outcome.",
    });
  }

  #markdownLines(): string[] {
    if (!this.#markdown) return [];
    const markdown = this.#markdown();
    return [
      "# HELP sourcegraph_markdown_renders_total Markdown documents handed to the rendering worker.",
      "# TYPE sourcegraph_markdown_renders_total counter",
      `sourcegraph_markdown_renders_total ${markdown.renders}`,
      "# HELP sourcegraph_markdown_renders_in_flight Markdown documents in the rendering worker now.",
      "# TYPE sourcegraph_markdown_renders_in_flight gauge",
      `sourcegraph_markdown_renders_in_flight ${markdown.inFlight}`,
      "# HELP sourcegraph_markdown_waiting Markdown documents waiting for the rendering worker.",
      "# TYPE sourcegraph_markdown_waiting gauge",
      `sourcegraph_markdown_waiting ${markdown.waiting}`,
      "# HELP sourcegraph_markdown_cache_hits_total Markdown answers taken from the cache.",
      "# TYPE sourcegraph_markdown_cache_hits_total counter",
      `sourcegraph_markdown_cache_hits_total ${markdown.cacheHits}`,
      "# HELP sourcegraph_markdown_cache_bytes Bytes of Markdown answers cached.",
      "# TYPE sourcegraph_markdown_cache_bytes gauge",
      `sourcegraph_markdown_cache_bytes ${markdown.cacheBytes}`,
      "# HELP sourcegraph_markdown_refused_total Markdown documents shown as source, by reason.",
      "# TYPE sourcegraph_markdown_refused_total counter",
      ...Object.entries(markdown.refused).map(([reason, count]) =>
        `sourcegraph_markdown_refused_total{reason="${reason}"} ${count}`
      ),
    ];
  }
}

// A front's open connections and its connections by outcome, as `name`_open and `name`_total.
function connectionLines(
  name: string,
  front: FrontDoorStats,
  help: { open: string; total: string },
): string[] {
  return [
    `# HELP ${name}_open ${help.open}`,
    `# TYPE ${name}_open gauge`,
    `${name}_open ${front.open}`,
    `# HELP ${name}_total ${help.total}`,
    `# TYPE ${name}_total counter`,
    `${name}_total{outcome="accepted"} ${front.accepted}`,
    `${name}_total{outcome="refused"} ${front.refused}`,
    `${name}_total{outcome="timed_out"} ${front.timedOut}`,
    `${name}_total{outcome="evicted"} ${front.evicted}`,
    `${name}_total{outcome="accept_error"} ${front.acceptErrors}`,
  ];
}

// Repositories by sync state, and each visible one's last sync outcome.
function repositoryLines(
  store: ControlStore,
  visible: (repo: RepositoryRecord) => boolean,
): string[] {
  const repositories = store.repositories();
  const byState = new Map<string, number>();
  for (const repo of repositories) {
    const state = repo.disabled ? "disabled" : store.syncState(repo.id).state;
    byState.set(state, (byState.get(state) ?? 0) + 1);
  }
  const out = [
    "# HELP sourcegraph_repositories Registered repositories by sync state.",
    "# TYPE sourcegraph_repositories gauge",
    ...[...byState].map(([state, count]) => `sourcegraph_repositories{state="${state}"} ${count}`),
    "# HELP sourcegraph_repository_sync_ok Whether the last sync of a repository succeeded.",
    "# TYPE sourcegraph_repository_sync_ok gauge",
  ];
  for (const repo of repositories) {
    if (!visible(repo)) continue;
    const state = store.syncState(repo.id).state;
    out.push(
      `sourcegraph_repository_sync_ok{repo=${JSON.stringify(repo.name)}} ${
        state === "ready" ? 1 : 0
      }`,
    );
  }
  return out;
}
