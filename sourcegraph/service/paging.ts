/**
 * Cursor paging by path: items sorted by path, `first` of them after the
 * cursor, with `has_more` and `next_cursor`.
 *
 * @module
 */

/** Sorts by path and returns `first` items after the `after` cursor, with paging fields. */
export function pageByPath<T extends { path: string }>(
  items: readonly T[],
  options: { first: number; after?: string },
): { page: T[]; more: { has_more: boolean; next_cursor?: string } } {
  const { first, after } = options;
  const sorted = [...items].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const start = after === undefined ? 0 : sorted.findIndex((item) => item.path > after);
  const page = start === -1 ? [] : sorted.slice(start, start + first);
  const hasMore = start !== -1 && start + first < sorted.length;
  return {
    page,
    more: { has_more: hasMore, ...(hasMore ? { next_cursor: page[page.length - 1].path } : {}) },
  };
}
