/**
 * A small string-keyed cache with approximate least-recently-used eviction (lru.ts).
 *
 * API: new LRU<V>(max) with get(key) and set(key, value).
 */
export { LRU } from './lru.js';
