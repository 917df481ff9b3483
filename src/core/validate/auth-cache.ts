// auth_cache (reference 4.2.1 #1): a user whose same password succeeded recently is accepted
// without a token check.
//
// Where privacyIDEA keeps an authcache table, authsrv keeps the cache in memory, per node and per
// database: the key is an HMAC-SHA256 (random per-process key) of user, realm, resolver and
// password, so neither the password nor a plain hash of it is ever held, and nothing about it
// reaches the database or survives a restart. On several nodes each node caches its own
// successes, so a client going round-robin may need one real authentication per node.
import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { parseDuration } from '../../config/index.ts';
import type { Store } from '../../store/index.ts';
import type { Runtime } from '../context.ts';
import type { ResolvedUser } from '../directory/index.ts';

interface Entry {
  first: number;
  last: number;
  /** Authentications answered from the cache since the entry was made. */
  count: number;
}

/** Entries beyond this drop the oldest first: a bound on memory, whatever the policy. */
const MAX_ENTRIES = 10_000;
const SECRET = createSecretKey(randomBytes(32));
const caches = new WeakMap<Store, Map<string, Entry>>();

function cacheOf(rt: Runtime): Map<string, Entry> {
  let c = caches.get(rt.store);
  if (!c) {
    c = new Map();
    caches.set(rt.store, c);
  }
  return c;
}

function keyOf(user: ResolvedUser, pass: string): string {
  return createHmac('sha256', SECRET)
    .update(JSON.stringify([user.login, user.realm, user.resolver, pass]))
    .digest('base64');
}

export interface CacheWindow {
  /** The first authentication must be at most this old (ms). */
  first: number;
  /** The last authentication must be at most this old (ms), when given. */
  last?: number;
  /** At most this many authentications from the cache (0 = no limit). */
  maxAuths: number;
}

/** `4h`, `4h/5m` (first / last), `4h/3` (first / count). */
export function parseCacheWindow(value: string): CacheWindow {
  const [first, second] = value.split('/');
  const out: CacheWindow = { first: parseDuration(first ?? '') * 1000, maxAuths: 0 };
  if (second !== undefined) {
    if (/^\d+$/.test(second.trim())) out.maxAuths = Number(second.trim());
    else out.last = parseDuration(second) * 1000;
  }
  return out;
}

/** Whether the cache accepts the password now; a hit counts as one more authentication. */
export function verifyInCache(rt: Runtime, user: ResolvedUser, pass: string, window: CacheWindow): boolean {
  const cache = cacheOf(rt);
  const key = keyOf(user, pass);
  const e = cache.get(key);
  if (!e) return false;
  const now = rt.clock().getTime();
  if (now - e.first > window.first) {
    cache.delete(key);
    return false;
  }
  if (window.last !== undefined && now - e.last > window.last) return false;
  if (window.maxAuths > 0 && e.count >= window.maxAuths) return false;
  e.last = now;
  e.count += 1;
  return true;
}

/** Stores a successful authentication (a new first authentication). */
export function addToCache(rt: Runtime, user: ResolvedUser, pass: string): void {
  const cache = cacheOf(rt);
  const now = rt.clock().getTime();
  const key = keyOf(user, pass);
  cache.delete(key);
  cache.set(key, { first: now, last: now, count: 0 });
  while (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
}
