/**
 * `compute` remembered by key, for the read path's pure per-string work
 * (statement names, token counts, name patterns) that recurs request after
 * request. At most `max` entries; when full it starts over rather than
 * tracking recency, which is all these caches need.
 */
export function memoizeBounded<V>(compute: (key: string) => V, max: number): (key: string) => V {
  const cache = new Map<string, V>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      value = compute(key);
      if (cache.size >= max) cache.clear();
      cache.set(key, value);
    }
    return value;
  };
}
