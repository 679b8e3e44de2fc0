import { LRUCache } from 'lru-cache';

/**
 * A least-recently-used cache of at most `max` entries whose slots are made as entries arrive.
 * lru-cache's own `max` allocates every slot up front (two arrays of `max` and three typed arrays):
 * the service's caches hold up to 50,000 entries each, ~170,000 slots a service, 40–50 ms of CPU
 * and ~5 MB at every start, mostly for entries that never come (every test service paid it).
 * Counting each entry as size 1 against `maxSize` bounds them the same (the least recently used
 * entry goes when one more would pass the bound) with arrays that grow as entries arrive.
 */
export function lruCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(max: number, options: { ttl?: number } = {}): LRUCache<K, V> {
  return new LRUCache<K, V>({ maxSize: max, sizeCalculation: () => 1, ...options });
}
