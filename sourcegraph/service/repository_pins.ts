/**
 * The repositories a request across repositories covers: the visible ones a
 * selection names (exact names or name globs such as `org/*`; none: every
 * visible one), in name order, each pinned at its default branch or at a
 * branch name it has. A selected repository that cannot be pinned is named
 * with the reason, never silently left out; a continued page keeps the
 * first page's pins as long as the caller may still read them.
 *
 * @module
 */

import picomatch from "picomatch";
import type { Caller } from "../access/caller.ts";
import type { Visibility } from "../access/visibility.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import { SourcegraphError } from "../errors.ts";

/** Most repositories one request across repositories covers (a selection naming more is refused). */
export const FANOUT_MAX_REPOSITORIES = 200;

/** Whether a selector is a name glob (`org/*`) rather than one repository's name. */
export function isNameGlob(selector: string): boolean {
  return picomatch.scan(selector).isGlob;
}

/**
 * The one repository `selection` (a tool's `repo` argument) names, or null
 * when it covers several: a list, a glob, or none at all.
 */
export function singleRepository(selection: unknown): string | null {
  return typeof selection === "string" && !isNameGlob(selection) ? selection : null;
}

/** A repository and the commit a request across repositories pinned it at. */
export interface RepositoryPin {
  repo: string;
  commit: string;
}

/** A selected repository that could not be covered, and why. */
export interface SkippedRepository {
  repo: string;
  code: string;
  message: string;
}

/**
 * The selection's visible repositories, each at its commit, in name order
 * (INVALID_REQUEST when it names more than `FANOUT_MAX_REPOSITORIES`; an
 * exact name the caller cannot see fails as a read of it would).
 */
export function pinRepositories(
  store: ControlStore,
  caller: Caller,
  options: { visibility: Visibility; repos: string[] | null; revision?: string },
): { pins: RepositoryPin[]; skipped: SkippedRepository[] } {
  const { visibility } = options;
  // The records the selection was made from: each is resolved without reading it again.
  const records = new Map(store.repositories().map((repo) => [repo.name, repo]));
  const selected = selectedRepositories(store, caller, { ...options, records });
  const pins: RepositoryPin[] = [];
  const skipped: SkippedRepository[] = [];
  for (const repo of selected) {
    try {
      const { commit } = visibility.resolveRecord(caller, records.get(repo)!, options);
      pins.push({ repo, commit });
    } catch (error) {
      if (!(error instanceof SourcegraphError)) throw error;
      skipped.push({ repo, code: error.code, message: error.message });
    }
  }
  return { pins, skipped };
}

/**
 * The names of the visible repositories `options.repos` selects (null:
 * every visible one), in name order (INVALID_REQUEST past
 * `FANOUT_MAX_REPOSITORIES`; an exact name the caller cannot see fails as a
 * read of it would).
 */
export function selectedRepositories(
  store: ControlStore,
  caller: Caller,
  options: {
    visibility: Visibility;
    repos: string[] | null;
    /** The store's records by name, when the caller already read them. */
    records?: ReadonlyMap<string, RepositoryRecord>;
  },
): string[] {
  const { visibility } = options;
  const records = options.records?.values() ?? store.repositories();
  const visible = [...records].filter((repo) => visibility.visible(caller, repo))
    .map((repo) => repo.name).sort();
  const selected = options.repos === null ? visible : selectNames(visible, options.repos, {
    missing: (name) => visibility.repository(caller, name), // throws with a hint
  });
  if (selected.length > FANOUT_MAX_REPOSITORIES) {
    throw new SourcegraphError(
      "INVALID_REQUEST",
      `the selection names ${selected.length} repositories; at most ${FANOUT_MAX_REPOSITORIES}`,
      { hint: "Narrow repo to a list or a glob such as `org/*`." },
    );
  }
  return selected;
}

/**
 * `pins` again, once the cursor that holds them is one the request could
 * have been given: each pin a distinct repository that `options.repos`
 * selects among the caller's visible ones (a private, unknown or unselected
 * one, or one pinned twice, is INVALID_CURSOR, the same for each, before
 * anything is searched), at a version still retained (else INVALID_CURSOR
 * saying so: versions age out as branches move, so the search starts again).
 * A request whose own selection names a repository the caller cannot see
 * fails as its first page would.
 */
export function repinned(
  store: ControlStore,
  caller: Caller,
  options: { visibility: Visibility; repos: string[] | null; pins: RepositoryPin[] },
): RepositoryPin[] {
  const { visibility, pins } = options;
  if (
    pins.length > FANOUT_MAX_REPOSITORIES ||
    new Set(pins.map((pin) => pin.repo)).size !== pins.length
  ) throw cursorNotIssued();
  const records = new Map(store.repositories().map((repo) => [repo.name, repo]));
  const visible = [...records.values()].filter((repo) => visibility.visible(caller, repo))
    .map((repo) => repo.name).sort();
  const selected = new Set(
    options.repos === null ? visible : selectNames(visible, options.repos, {
      missing: (name) => visibility.repository(caller, name), // throws with a hint
    }),
  );
  // A pin outside the request's selection: a cursor of another request, or forged.
  if (!pins.every((pin) => selected.has(pin.repo))) throw cursorNotIssued();
  for (const pin of pins) {
    try {
      visibility.resolveRecord(caller, records.get(pin.repo)!, { revision: pin.commit });
    } catch (error) {
      if (!(error instanceof SourcegraphError) || error.code !== "REVISION_NOT_ELIGIBLE") {
        throw error;
      }
      throw new SourcegraphError(
        "INVALID_CURSOR",
        `the cursor's version of ${pin.repo} is not retained`,
        { hint: "Versions age out as branches move: start again without after." },
      );
    }
  }
  return pins;
}

/** The error of a cursor the service never issued for this request. */
export function cursorNotIssued(): SourcegraphError {
  return new SourcegraphError("INVALID_CURSOR", "the cursor is not one issued for this request", {
    hint: "Pass the next cursor exactly as the previous page gave it, with the same request, " +
      "or start again without after.",
  });
}

// The names of `visible` the selectors choose, in name order: a glob picks
// what it matches; an exact name must be visible (`missing` throws for it).
function selectNames(
  visible: readonly string[],
  selectors: readonly string[],
  options: { missing: (name: string) => unknown },
): string[] {
  const chosen = new Set<string>();
  for (const selector of selectors) {
    if (isNameGlob(selector)) {
      const matches = picomatch(selector, { dot: true });
      for (const name of visible) if (matches(name)) chosen.add(name);
    } else if (visible.includes(selector)) chosen.add(selector);
    else options.missing(selector);
  }
  return [...chosen].sort();
}
