import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { Ctx } from '../context.js';
import { AppError } from '../errors.js';
import { sha256Hex } from '../lib/crypto.js';
import { LeasedLimiter, LimitExceeded } from './leased-limiter.js';
import { type LimiterStore, type StoreKind, chooseStoreKind, openLimiterStore } from './limiter-store.js';

export const TOO_MANY_CALLS = 'Too many MCP calls';

/**
 * Every rate limit and throttle of the service, one function each, counted in one store shared
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
  /** One OAuth dynamic client registration from an address; 429 rate_limited. */
  registration(address: string): Promise<void>;
  close(): Promise<void>;
}

const MINUTE = 60_000;
const retrySeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export function createLimits(ctx: Ctx): Limits {
  const { config } = ctx;
  const storeKind = chooseStoreKind(ctx);
  let store: LimiterStore | undefined;
  const made = new Map<string, RateLimiterAbstract>();
  const limiter = (name: string, points: number, durationMs: number, blockInMemory: boolean) => {
    let l = made.get(name);
    if (!l) {
      store ??= openLimiterStore(ctx);
      l = store.limiter({ name, points, durationMs, blockInMemory });
      made.set(name, l);
    }
    return l;
  };

  let content: LeasedLimiter | undefined;
  const contentLimiter = () =>
    (content ??= new LeasedLimiter(limiter('content', config.content.rateLimitPerMinute, MINUTE, true), config.content.rateLimitPerMinute, config.limits.contentLeaseSize));
  const { signIn, registration } = config.limits;

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
      // No in-memory block here: a refused batch is given back, so the key may fit smaller calls.
      const l = limiter('mcp', config.mcp.rateLimitPerMinute, MINUTE, false);
      const refused = await over(l.consume(principalId, count));
      if (!refused) return;
      await l.reward(principalId, count).catch(() => undefined);
      throw new AppError('rate_limited', 429, TOO_MANY_CALLS, { details: { retryAfterSeconds: retrySeconds(refused.msBeforeNext) } });
    },

    async signInAttempt(email, address) {
      // Per account and address pair (a stranger elsewhere cannot lock the account), and per
      // address across accounts. The key is hashed: it bounds the length and keeps emails out of the store.
      const pair = limiter('sign-in-pair', signIn.perAccountAddress, signIn.window, true);
      const byAddress = limiter('sign-in-address', signIn.perAddress, signIn.window, true);
      const pairKey = sha256Hex(`${email}\n${address}`);
      const refused = (await over(pair.consume(pairKey))) ?? (await over(byAddress.consume(address)));
      if (refused) throw tooManyAttempts(refused.msBeforeNext);
      return {
        // A good password: the pair starts over, and the address counts failures only.
        succeeded: async () => {
          await Promise.all([pair.delete(pairKey), byAddress.reward(address, 1)]).catch(() => undefined);
        },
      };
    },

    async registration(address) {
      const refused = await over(limiter('registration', registration.perAddress, registration.window, true).consume(address));
      if (!refused) return;
      const s = retrySeconds(refused.msBeforeNext);
      throw new AppError('rate_limited', 429, `Too many client registrations from this address. Retry in ${s} s.`, { details: { retryAfterSeconds: s } });
    },

    async close() {
      await store?.close();
    },
  };
}

/** The refusal of a consume, or undefined when it was allowed (store failures go to the insurance). */
async function over(consumed: Promise<RateLimiterRes>): Promise<RateLimiterRes | undefined> {
  try {
    await consumed;
    return undefined;
  } catch (err) {
    if (err instanceof RateLimiterRes) return err;
    throw err;
  }
}

function tooManyAttempts(retryMs: number): AppError {
  const minutes = Math.max(1, Math.ceil(retryMs / MINUTE));
  return new AppError('too_many_attempts', 429, `Too many sign-in attempts. Please wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`, {
    details: { retryAfterSeconds: retrySeconds(retryMs) },
  });
}
