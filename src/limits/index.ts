import type { Ctx } from '../context.js';
import { AppError } from '../errors.js';
import { sha256Hex } from '../lib/crypto.js';
import { addressKey, networkKey } from './address.js';
import { LeasedLimiter, LimitExceeded } from './leased-limiter.js';
import { type StoreKind, chooseStoreKind, openLimiterStore } from './limiter-store.js';
import type { Window, WindowStore } from './window-store.js';

export const TOO_MANY_CALLS = 'Too many MCP calls';

/**
 * Every rate limit and throttle of the service, one function each (a per-address limit keys on
 * addressKey: an IPv6 client by its /64), counted in one store shared
 * by all daemons (limiter-store.ts; docs/deployment.md "Limits across daemons"). Built once per
 * App; the store is opened on first use, so a CLI command that limits nothing connects nothing.
 */
export interface Limits {
  readonly storeKind: StoreKind;
  /** One content API request of a blog key: undefined when allowed at once, else a promise; 429 rate_limited. */
  content(keyHash: string): Promise<void> | undefined;
  /** `count` MCP calls (a JSON-RPC batch counts each request) of a principal, all or none; 429 rate_limited. */
  mcpCalls(principalId: string, count: number): Promise<void>;
  /** Counts one sign-in attempt before the password is checked; 429 too_many_attempts. Call succeeded() after a good password. */
  signInAttempt(email: string, address: string): Promise<{ succeeded(): Promise<void> }>;
  /**
   * A content API request's blog key, checked by `authenticate` unless the address sent too many
   * refused keys this window (then 429 rate_limited without looking at the key); a refused key
   * (null) counts for the address. The address is only asked for when an address is blocked or a
   * key was refused.
   */
  blogKey<R>(address: () => string, authenticate: () => Promise<R | null>): Promise<R | null>;
  /** One OAuth dynamic client registration from an address; 429 rate_limited. */
  registration(address: string): Promise<void>;
  close(): Promise<void>;
}

const MINUTE = 60_000;
const retrySeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export function createLimits(ctx: Ctx): Limits {
  const { config } = ctx;
  const storeKind = chooseStoreKind(ctx);
  const now = () => ctx.clock.now().getTime();
  let opened: WindowStore | undefined;
  const store = () => (opened ??= openLimiterStore(ctx));
  const made = new Map<string, Limit>();
  const limit = (name: string, points: number, windowMs: number, blockInMemory: boolean) => {
    let l = made.get(name);
    if (!l) made.set(name, (l = new Limit(store, name, points, windowMs, blockInMemory, now)));
    return l;
  };

  let content: LeasedLimiter | undefined;
  const contentLimiter = () => {
    const l = limit('content', config.content.rateLimitPerMinute, MINUTE, false);
    return (content ??= new LeasedLimiter((key, n) => l.add(key, n), config.content.rateLimitPerMinute, config.limits.contentLeaseSize, now));
  };
  const { signIn, registration, wrongBlogKey } = config.limits;
  const wrongKeysRefused = (resetAt: number) => {
    const s = retrySeconds(resetAt - now());
    return new AppError('rate_limited', 429, `Too many requests with a wrong blog key from this address. Retry in ${s} s.`, { details: { retryAfterSeconds: s } });
  };

  return {
    storeKind,
    content(keyHash) {
      const wait = contentLimiter().take(keyHash);
      return wait?.catch((err) => {
        if (!(err instanceof LimitExceeded)) throw err;
        const s = retrySeconds(err.retryAfterMs);
        throw new AppError('rate_limited', 429, `Too many requests: at most ${config.content.rateLimitPerMinute} per minute per key. Retry in ${s} s.`, { details: { retryAfterSeconds: s } });
      });
    },

    async mcpCalls(principalId, count) {
      // A batch is taken whole or not at all, in one step of the store: a refused batch changes
      // no count, so a smaller call may still fit (hence no in-memory block either).
      const taken = await limit('mcp', config.mcp.rateLimitPerMinute, MINUTE, false).take(principalId, count);
      if (taken.taken) return;
      const s = retrySeconds(taken.resetAt - now());
      // The wait in the words too: an agent often sees only the message, not the Retry-After header.
      throw new AppError('rate_limited', 429, `${TOO_MANY_CALLS}: at most ${config.mcp.rateLimitPerMinute} per minute for this key or connection. Retry in ${s} s.`, { details: { retryAfterSeconds: s } });
    },

    async signInAttempt(email, clientAddress) {
      const address = addressKey(clientAddress);
      // Per address across accounts first, so an address over its limit is refused without a
      // write (from memory once refused); then per account and address pair (a stranger elsewhere
      // cannot lock the account). An attempt the pair refuses still counts for the address. The
      // pair's key is hashed: it bounds the length and keeps emails out of the store.
      const byAddress = limit('sign-in-address', signIn.perAddress, signIn.window, true);
      const pair = limit('sign-in-pair', signIn.perAccountAddress, signIn.window, true);
      const addressTaken = await byAddress.take(address);
      if (!addressTaken.taken) throw tooManyAttempts(addressTaken.resetAt - now());
      // Then per network: the 65,536 /64s of one /48, each an address above, made an unlimited
      // stream of guesses (each a 32 MB scrypt; measured 16 a second, 1.1 cores, all answered 401).
      // An IPv4 address is its own network: counted again it would cap at perNetwork an address
      // an operator allowed more (perAddress raised for clients behind one NAT).
      const byNetwork = limit('sign-in-network', signIn.perNetwork, signIn.window, true);
      const network = networkKey(clientAddress);
      const networkTaken = network === address ? undefined : await byNetwork.take(network);
      if (networkTaken && !networkTaken.taken) throw tooManyAttempts(networkTaken.resetAt - now());
      const pairKey = sha256Hex(`${email}\n${address}`);
      const pairTaken = await pair.take(pairKey);
      if (!pairTaken.taken) throw tooManyAttempts(pairTaken.resetAt - now());
      return {
        // A good password: the pair starts over, and the address counts failures only (the
        // point goes back to the window it was taken from, if that window still runs).
        succeeded: async () => {
          await Promise.all([pair.delete(pairKey), byAddress.giveBack(address, 1, addressTaken.resetAt), networkTaken && byNetwork.giveBack(network, 1, networkTaken.resetAt)]).catch(() => undefined);
        },
      };
    },

    async blogKey(clientAddress, authenticate) {
      const wrongKeys = limit('wrong-blog-key', wrongBlogKey.perAddress, wrongBlogKey.window, true);
      // Working out the address key costs more than the rest of this check: only when needed (every cached request passes here).
      const blockedUntil = wrongKeys.blocksAny() ? wrongKeys.blockedUntil(addressKey(clientAddress())) : undefined;
      if (blockedUntil !== undefined) throw wrongKeysRefused(blockedUntil);
      const reader = await authenticate();
      if (reader !== null) return reader;
      const taken = await wrongKeys.take(addressKey(clientAddress()));
      if (!taken.taken) throw wrongKeysRefused(taken.resetAt);
      return null;
    },

    async registration(address) {
      // Per address, then per network: a registered client stays up to oauth.unusedClientExpiry,
      // so an IPv6 /48 taking turns through its /64s would otherwise store 65,536 times as many.
      const refused = (taken: Window, from: string) => {
        const s = retrySeconds(taken.resetAt - now());
        return new AppError('rate_limited', 429, `Too many client registrations from this ${from}. Retry in ${s} s.`, { details: { retryAfterSeconds: s } });
      };
      const byAddress = await limit('registration', registration.perAddress, registration.window, true).take(addressKey(address));
      if (!byAddress.taken) throw refused(byAddress, 'address');
      // An IPv4 address is its own network, limited by perAddress alone (as for sign-ins).
      const network = networkKey(address);
      if (network === addressKey(address)) return;
      const byNetwork = await limit('registration-network', registration.perNetwork, registration.window, true).take(network);
      if (!byNetwork.taken) throw refused(byNetwork, 'network');
    },

    async close() {
      await opened?.close();
    },
  };
}

/**
 * One limit over the store: its keys carry its name. With blockInMemory, a key refused once is
 * refused from memory until its window ends (no store round trip while a client hammers).
 */
class Limit {
  private readonly blocked = new Map<string, number>();

  constructor(
    private readonly store: () => WindowStore,
    private readonly name: string,
    private readonly points: number,
    private readonly windowMs: number,
    private readonly blockInMemory: boolean,
    private readonly now: () => number,
  ) {}

  /** Whether any key is blocked in memory (some may have ended: blockedUntil says). */
  blocksAny(): boolean {
    return this.blocked.size > 0;
  }

  /** When the key's in-memory block ends, if it is blocked now. */
  blockedUntil(key: string): number | undefined {
    const until = this.blocked.get(key);
    if (until === undefined) return undefined;
    if (until > this.now()) return until;
    this.blocked.delete(key);
    return undefined;
  }

  /** n points only if they fit (one atomic step of the store). */
  async take(key: string, n = 1): Promise<Window> {
    const until = this.blockedUntil(key);
    if (until !== undefined) return { taken: false, count: this.points, resetAt: until };
    const w = await this.store().take(this.key(key), n, this.windowMs, this.points);
    if (!w.taken && this.blockInMemory) {
      if (this.blocked.size > 10_000) this.sweep();
      this.blocked.set(key, w.resetAt);
    }
    return w;
  }

  /** n points whatever the limit (the content leases). */
  add(key: string, n: number): Promise<Window> {
    return this.store().take(this.key(key), n, this.windowMs);
  }

  giveBack(key: string, n: number, resetAt: number): Promise<void> {
    return this.store().giveBack(this.key(key), n, resetAt);
  }

  delete(key: string): Promise<void> {
    this.blocked.delete(key);
    return this.store().delete(this.key(key));
  }

  private key(key: string): string {
    return `${this.name}:${key}`;
  }

  private sweep(): void {
    const t = this.now();
    for (const [key, until] of this.blocked) if (until <= t) this.blocked.delete(key);
  }
}

function tooManyAttempts(retryMs: number): AppError {
  const minutes = Math.max(1, Math.ceil(retryMs / MINUTE));
  return new AppError('too_many_attempts', 429, `Too many sign-in attempts. Please wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`, {
    details: { retryAfterSeconds: retrySeconds(retryMs) },
  });
}
