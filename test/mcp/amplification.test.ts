import { beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../helpers/daemon.js';
import { rpc, startPost, workspaceWithAdmin } from './helpers.js';
import { seedArticle } from '../helpers/seed.js';
import { ANSWER_BUDGET_BYTES } from '../../src/mcp/guard.js';

// Issue 22: an anonymous POST of a 5 MB batch was parsed and answered with one JSON-RPC error
// per element (a 45 MB answer). The headers decide first; a refused batch gets one error.

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const bigBatch = JSON.stringify(Array.from({ length: 40_000 }, (_, i) => ping(i))); // ~1.3 MB

const FIRST = '[{"jsonrpc":"2.0","id":1,"method":"ping"},';

let d: TestDaemon;
let auth: { Authorization: string };
beforeAll(async () => {
  const f = await workspaceWithAdmin({ overrides: { 'mcp.rateLimitPerMinute': 2 } });
  d = f.d;
  auth = { Authorization: `Bearer ${await f.key(['read'])}` };
});

describe('/api/mcp refusals cost the daemon nothing of the body', () => {
  it.each([
    ['no token', {}, 401, 'unauthorized'],
    ['an unknown token', { Authorization: 'Bearer svc_live_not_a_key' }, 401, 'invalid_token'],
    ['a foreign Origin', { Origin: 'https://evil.example' }, 403, 'origin_not_allowed'],
  ])('%s: a big batch gets one small error, id null', async (_, headers, status, code) => {
    const res = await rpc(d, bigBatch, { ...(code === 'origin_not_allowed' ? auth : {}), ...headers });
    expect(res.status).toBe(status);
    const text = await res.text();
    expect(text.length).toBeLessThan(1000);
    expect(JSON.parse(text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { data: { code } } });
  });

  it('is answered before the body arrives when the headers already refuse it', async () => {
    const anonymous = await startPost(d, {}, FIRST, 5_000_000);
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.body)).toMatchObject({ id: null, error: { data: { code: 'unauthorized' } } });
    const origin = await startPost(d, { ...auth, Origin: 'https://evil.example' }, FIRST, 5_000_000);
    expect(origin.status).toBe(403);
  });

  it('a batch refused by the call budget gets one error, not one per request', async () => {
    const res = await rpc(d, Array.from({ length: 50 }, (_, i) => ping(i)), auth);
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/^Too many MCP calls: at most \d+ per minute for this key or connection\. Retry in \d+ s\.$/), data: { code: 'rate_limited' } } });
  });
});

type Answer = { id: number; result?: unknown; error?: { data?: { code?: string } } };

/** A batch of `n` get_article calls (body included) of an article of `paragraph` repeated to about `chars`, from a read-only key. */
async function batchOfLongArticle(paragraph: string, chars: number, n: number) {
  const f = await workspaceWithAdmin();
  const key = await f.key(['read']);
  const article = await seedArticle(f.d.app, f.ws, { title: 'Long one', bodyMarkdown: paragraph.repeat(Math.ceil(chars / paragraph.length)) });
  const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_article', arguments: { id: article.id, includeBody: true } } });
  const res = await rpc(f.d, Array.from({ length: n }, (_, i) => call(i)), { Authorization: `Bearer ${key}`, 'MCP-Protocol-Version': '2025-03-26' });
  expect(res.status).toBe(200);
  const body = Buffer.from(await res.arrayBuffer());
  const answers = JSON.parse(body.toString('utf8')) as Answer[];
  return { d: f.d, key, call, body, answers, answered: answers.filter((a) => a.result), refused: answers.filter((a) => a.error) };
}

describe('the answers of one POST are bounded (ANSWER_BUDGET_BYTES)', () => {
  it('a batch of get_article calls of a long article, from a read-only key: answers up to the budget, the rest refused with answers_too_large; a single call is always answered', async () => {
    const { d, key, call, body, answers, answered, refused } = await batchOfLongArticle(`${'word '.repeat(150)}\n\n`, 1_500_000, 20);
    expect(answers.map((a) => a.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(answered.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(answered.length + refused.length).toBe(20);
    for (const r of refused) expect(r.error!.data!.code).toBe('answers_too_large');
    // The budget plus the one answer that crossed it.
    expect(body.length).toBeLessThan(ANSWER_BUDGET_BYTES + 2 * JSON.stringify(answered[0]).length);
    const single = await rpc(d, call(1), { Authorization: `Bearer ${key}` });
    const one = (await single.json()) as { result?: { isError?: boolean; content: unknown[] } };
    expect(one.result?.content).toHaveLength(1);
    expect(one.result?.isError).toBeFalsy();
  });

  it('counts the bytes of the answers, not their characters: an article in Chinese takes three bytes a character', async () => {
    const { body, answered, refused } = await batchOfLongArticle(`${'汉字文本'.repeat(250)}\n\n`, 600_000, 12);
    // In characters the twelve answers stay under the budget; in bytes about a third of them fill it.
    expect(12 * JSON.stringify(answered[0]).length).toBeLessThan(ANSWER_BUDGET_BYTES);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.error!.data!.code).toBe('answers_too_large');
    expect(body.length).toBeLessThan(ANSWER_BUDGET_BYTES + 2 * Buffer.byteLength(JSON.stringify(answered[0])));
  });
});
