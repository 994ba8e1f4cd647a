/**
 * Cursor paging by path: items sorted by path, `first` of them after the
 * cursor, and where the next page starts.
 *
 * @module
 */

/** Where a page ends. */
export interface Page {
  /** Whether items follow this page. */
  hasMore: boolean;
  /** The cursor of the next page (the last path of this one) when `hasMore`. */
  nextCursor: string | null;
}

/** Sorts by path and returns `first` items after the `after` cursor, with paging fields. */
export function pageByPath<T extends { path: string }>(
  items: readonly T[],
  options: { first: number; after?: string },
): Page & { items: T[] } {
  const { first, after } = options;
  const sorted = [...items].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const start = after === undefined ? 0 : sorted.findIndex((item) => item.path > after);
  const page = start === -1 ? [] : sorted.slice(start, start + first);
  const hasMore = start !== -1 && start + first < sorted.length;
  return { items: page, hasMore, nextCursor: hasMore ? page[page.length - 1].path : null };
}
