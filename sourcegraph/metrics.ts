/**
 * Prometheus text metrics: requests by tool and code, request latency
 * histograms by tool, and the sync state of each repository.
 *
 * @module
 */

import type { ControlStore } from "./control_store.ts";

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** In-process counters. */
export class Metrics {
  #requests = new Map<string, number>();
  #latency = new Map<string, { buckets: number[]; sum: number; count: number }>();

  /** Records one tool call. */
  record(tool: string, code: string, seconds: number): void {
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

  /** Renders the exposition text. */
  render(store: ControlStore): string {
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
    out.push(
      "# HELP sourcegraph_repository_sync_ok Whether the last sync of a repository succeeded.",
      "# TYPE sourcegraph_repository_sync_ok gauge",
    );
    for (const repo of store.repositories()) {
      const state = store.syncState(repo.id).state;
      out.push(
        `sourcegraph_repository_sync_ok{repo=${JSON.stringify(repo.name)}} ${
          state === "ready" ? 1 : 0
        }`,
      );
    }
    return out.join("\n") + "\n";
  }
}
