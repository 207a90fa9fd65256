import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterFile } from '../helpers/cleanup.js';

// A local stand-in for DataForSEO v3 that follows its documented envelope
// ({ status_code: 20000, tasks: [{ status_code, result: [...] }] }), its Basic auth and its error
// shapes (HTTP 401/402/5xx, status codes 40100, 40200, 40202, 40501). It records every request
// and can be scripted to fail or to hang.

export interface FakeRequest {
  path: string;
  task: Record<string, any>;
  authorization: string | undefined;
}

/** A scripted answer: an HTTP status and a body (an envelope, or raw text). */
export interface Answer {
  http?: number;
  body?: unknown;
}

export interface FakeDataForSeo {
  url: string;
  login: string;
  password: string;
  requests: FakeRequest[];
  /** Keywords sent to the search volume endpoint, in order. */
  volumeKeywords(): string[];
  /** Answer the next requests with these, in order (then normally again). */
  queue(...answers: Answer[]): void;
  /** Hold every request until release() (a provider that never answers). */
  hold(): void;
  release(): void;
  /** Resolves when n requests have arrived; fails, saying what came, after ms (15 s). */
  received(n: number, ms?: number): Promise<void>;
  env: Record<string, string>;
}

const PATHS = {
  volume: '/v3/keywords_data/google_ads/search_volume/live',
  difficulty: '/v3/dataforseo_labs/google/bulk_keyword_difficulty/live',
  intent: '/v3/dataforseo_labs/google/search_intent/live',
  ideas: '/v3/dataforseo_labs/google/keyword_ideas/live',
};

export const envelope = (result: unknown[] | null, task: Record<string, unknown> = {}, statusCode = 20000, statusMessage = 'Ok.') => ({
  version: '0.1.20261101',
  status_code: 20000,
  status_message: 'Ok.',
  time: '0.1 sec.',
  cost: 0.05,
  tasks_count: 1,
  tasks_error: statusCode === 20000 ? 0 : 1,
  tasks: [{ id: '11231200-0000-0000-0000-000000000000', status_code: statusCode, status_message: statusMessage, time: '0.1 sec.', cost: 0.05, result_count: result?.length ?? 0, path: [], data: task, result }],
});

export const ERRORS = {
  auth: { http: 401, body: { status_code: 40100, status_message: 'You are not authorized to access this resource. See your login details here: https://app.dataforseo.com/api-access', tasks: null } },
  payment: { http: 402, body: { status_code: 40200, status_message: 'Payment Required.', tasks: null } },
  rate: { http: 200, body: { status_code: 40202, status_message: 'Rate-limit per minute exceeded.', tasks_count: 0, tasks: null } },
  invalidField: { http: 200, body: envelope(null, {}, 40501, "Invalid Field: 'location_name'.") },
  server: { http: 500, body: { status_code: 50000, status_message: 'Internal Error.' } },
} satisfies Record<string, Answer>;

/** Deterministic metrics, so tests can state them: volume 10 x (characters)^2, KD = characters x 3. */
export function metricsOf(keyword: string) {
  const n = [...keyword].length;
  return {
    volume: 10 * n * n,
    difficulty: Math.min(100, n * 3),
    cpc: Math.round((0.5 + n / 10) * 100) / 100,
    competitionIndex: Math.min(100, n * 2),
    intent: /\bbuy\b/.test(keyword) ? 'transactional' : /\bbest\b/.test(keyword) ? 'commercial' : 'informational',
  };
}

const monthly = (volume: number) =>
  Array.from({ length: 12 }, (_, i) => {
    const d = new Date(Date.UTC(2026, 9 - i, 1));
    return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, search_volume: volume + i * 10 };
  });

function answer(path: string, task: Record<string, any>): unknown[] {
  const keywords: string[] = (task.keywords ?? []).map((k: string) => k.toLowerCase());
  switch (path) {
    case PATHS.volume:
      return keywords.map((keyword) => {
        const m = metricsOf(keyword);
        return { keyword, spell: null, location_code: task.location_code ?? null, language_code: task.language_code ?? null, search_partners: false, competition: m.competitionIndex < 34 ? 'LOW' : m.competitionIndex < 67 ? 'MEDIUM' : 'HIGH', competition_index: m.competitionIndex, search_volume: m.volume, low_top_of_page_bid: 0.2, high_top_of_page_bid: 1.5, cpc: m.cpc, monthly_searches: monthly(m.volume) };
      });
    case PATHS.difficulty:
      return [{ se_type: 'google', location_code: task.location_code ?? null, language_code: task.language_code ?? null, total_count: keywords.length, items_count: keywords.length, items: keywords.map((keyword) => ({ se_type: 'google', keyword, keyword_difficulty: metricsOf(keyword).difficulty })) }];
    case PATHS.intent:
      return [{ language_code: task.language_code ?? null, items_count: keywords.length, items: keywords.map((keyword) => ({ keyword, keyword_intent: { label: metricsOf(keyword).intent, probability: 0.9 }, secondary_keyword_intents: [] })) }];
    case PATHS.ideas: {
      const ideas = keywords.flatMap((seed) => [seed, `${seed} recipe`, `best ${seed}`, `${seed} near me`]);
      const items = ideas.slice(0, task.limit ?? 700).map((keyword) => {
        const m = metricsOf(keyword);
        return {
          se_type: 'google',
          keyword,
          location_code: task.location_code ?? null,
          language_code: task.language_code ?? null,
          keyword_info: { se_type: 'google', last_updated_time: '2026-11-01 00:00:00 +00:00', competition: m.competitionIndex / 100, competition_level: 'LOW', cpc: m.cpc, search_volume: m.volume, categories: [], monthly_searches: monthly(m.volume) },
          keyword_properties: { se_type: 'google', core_keyword: null, keyword_difficulty: m.difficulty, detected_language: 'en', is_another_language: false },
          search_intent_info: { se_type: 'google', main_intent: m.intent, foreign_intent: null, last_updated_time: '2026-11-01 00:00:00 +00:00' },
        };
      });
      return [{ se_type: 'google', seed_keywords: keywords, location_code: task.location_code ?? null, language_code: task.language_code ?? null, total_count: items.length, items_count: items.length, offset: 0, offset_token: 'x', items }];
    }
    default:
      return [];
  }
}

export async function startFakeDataForSeo(options: { login?: string; password?: string } = {}): Promise<FakeDataForSeo> {
  const login = options.login ?? 'api-user@example.com';
  const password = options.password ?? 'p4ssw0rd-do-not-log';
  const expected = 'Basic ' + Buffer.from(`${login}:${password}`).toString('base64');
  const requests: FakeRequest[] = [];
  const queued: Answer[] = [];
  let holding = false;
  let held: Array<() => void> = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const tasks = JSON.parse(raw || '[]');
      const task = Array.isArray(tasks) ? (tasks[0] ?? {}) : {};
      requests.push({ path: req.url ?? '', task, authorization: req.headers.authorization });
      for (const w of waiters.filter((w) => requests.length >= w.n)) w.resolve();
      const send = (a: Answer) => res.writeHead(a.http ?? 200, { 'Content-Type': 'application/json' }).end(typeof a.body === 'string' ? a.body : JSON.stringify(a.body));
      const respond = () => {
        if (req.headers.authorization !== expected) return send(ERRORS.auth);
        const scripted = queued.shift();
        if (scripted) return send(scripted);
        if (!Object.values(PATHS).includes(req.url as string)) return send({ http: 404, body: { status_code: 40400, status_message: 'Not Found.' } });
        send({ body: envelope(answer(req.url!, task), task) });
      };
      if (holding) held.push(respond);
      else respond();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  afterFile(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    login,
    password,
    requests,
    volumeKeywords: () => requests.filter((r) => r.path === PATHS.volume).flatMap((r) => r.task.keywords),
    queue: (...answers) => queued.push(...answers),
    hold: () => void (holding = true),
    release: () => {
      holding = false;
      for (const fn of held) fn();
      held = [];
    },
    received: (n, ms = 15_000) =>
      requests.length >= n
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`the fake DataForSEO got ${requests.length} of ${n} requests within ${ms} ms: ${requests.map((r) => r.path).join(', ')}`)), ms);
            waiters.push({ n, resolve: () => (clearTimeout(timer), resolve()) });
          }),
    env: { SVC_KEYWORDS_PROVIDER: 'dataforseo', SVC_KEYWORDS_DATAFORSEO_LOGIN: login, SVC_KEYWORDS_DATAFORSEO_PASSWORD: password, SVC_KEYWORDS_DATAFORSEO_BASE_URL: url },
  };
}
