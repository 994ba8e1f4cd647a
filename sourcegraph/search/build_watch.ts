/**
 * The service's watch over one running index build: a build that reports
 * nothing for longer than its idle limit has stalled (the service kills it;
 * the index keeps the commits it published), and a long build says in the
 * log how far it is, at most every `PROGRESS_LOG_MS`, from that long after
 * its start (a build done sooner logs only its outcome). Times are given by
 * the caller, on any clock that only moves forward.
 *
 * @module
 */

/** How long a build may report nothing before it is stopped, by default (`SOURCEGRAPH_INDEX_BUILD_IDLE`). */
export const DEFAULT_BUILD_IDLE_MS = 10 * 60_000;
/** Least time between two progress lines of one build in the log. */
export const PROGRESS_LOG_MS = 30_000;

/** One build's last report and last progress line. */
export class BuildWatch {
  #idleMs: number;
  #lastHeard: number;
  #lastLogged: number;

  /** A build started at `startedAt` that may stay quiet for `idleMs`. */
  constructor(options: { idleMs: number; startedAt: number }) {
    this.#idleMs = options.idleMs;
    this.#lastHeard = options.startedAt;
    this.#lastLogged = options.startedAt;
  }

  /** The build reported something at `now`. */
  heard(now: number): void {
    this.#lastHeard = Math.max(this.#lastHeard, now);
  }

  /** Whether the build has been quiet for longer than its idle limit at `now`. */
  stalled(now: number): boolean {
    return now - this.#lastHeard > this.#idleMs;
  }

  /** Whether a progress line is due at `now` (counted as logged when it is). */
  progressDue(now: number): boolean {
    if (now - this.#lastLogged < PROGRESS_LOG_MS) return false;
    this.#lastLogged = now;
    return true;
  }
}
