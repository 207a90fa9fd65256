import type { Logger } from '../lib/log.js';
import { VERSION } from '../version.js';
import { type ProviderFailureReason, providerFailure } from './provider-errors.js';

// DataForSEO v3 (https://docs.dataforseo.com/v3/): POST a JSON array holding one task, HTTP Basic
// auth with the API login and password. The answer is an envelope
// { status_code, status_message, tasks: [{ status_code, status_message, result: [...] }] }
// where 20000 is success. HTTP 401/402/404/5xx are used too (appendix/errors); everything else
// comes as HTTP 200 with an error status_code at the top or in the task.

export interface DataForSeoSettings {
  login: string;
  password: string;
  baseUrl: string;
  /** Time one lookup may take, all calls and retries included (ms). */
  timeout: number;
  retries: number;
}

interface Envelope {
  status_code?: number;
  status_message?: string;
  tasks?: Array<{ status_code?: number; status_message?: string; result?: unknown[] | null }>;
}

const NAME = 'DataForSEO';
const BACKOFF_MS = 200;

/** A client whose calls share one deadline (one lookup runs several endpoints at once). */
export function dataForSeoClient(settings: DataForSeoSettings, log: Logger) {
  const auth = 'Basic ' + Buffer.from(`${settings.login}:${settings.password}`).toString('base64');
  const deadline = Date.now() + settings.timeout;

  /** POST one task to `path` (e.g. `/v3/dataforseo_labs/google/search_intent/live`); the task's `result`. */
  return async function post(path: string, task: Record<string, unknown>): Promise<unknown[]> {
    const url = settings.baseUrl.replace(/\/+$/, '') + path;
    // The last retryable failure: reported once the attempts or the time are used up.
    let last: Retry | undefined;
    let attempts = 0;
    for (let attempt = 0; attempt <= settings.retries; attempt++) {
      if (attempt > 0) await pause(Math.min(BACKOFF_MS * 2 ** (attempt - 1), deadline - Date.now()));
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      const started = Date.now();
      attempts++;
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: { Authorization: auth, 'Content-Type': 'application/json', 'User-Agent': `svc/${VERSION}` },
          body: JSON.stringify([task]),
          signal: AbortSignal.timeout(remaining),
        });
      } catch (err) {
        if ((err as Error).name === 'TimeoutError') break;
        last = { retry: `${NAME} could not be reached (${causeOf(err)})`, details: { path } };
        log.info({ provider: 'dataforseo', path, attempt, error: causeOf(err) }, 'keyword provider unreachable');
        continue;
      }
      const envelope = parse(await res.text().catch(() => ''));
      log.debug({ provider: 'dataforseo', path, attempt, status: res.status, statusCode: envelope?.status_code, ms: Date.now() - started }, 'keyword provider call');
      const outcome = interpret(res.status, envelope, path);
      if (!('retry' in outcome)) return outcome.result;
      last = outcome;
    }
    if (last) throw fail('unavailable', `${last.retry}; tried ${attempts} time${attempts === 1 ? '' : 's'}`, last.details);
    throw fail('timeout', `${NAME} did not answer within ${seconds(settings.timeout)} (keywords.dataforseo.timeout)`, { path });
  };
}

interface Retry {
  retry: string;
  details: Record<string, unknown>;
}

/** One answer: the task's result, a failure worth another attempt (5xx), or a thrown refusal. */
function interpret(status: number, envelope: Envelope | undefined, path: string): { result: unknown[] } | Retry {
  const code = envelope?.status_code;
  if (status >= 500 || (code !== undefined && code >= 50000)) {
    return { retry: `${NAME} answered with an error (HTTP ${status}${code ? `, ${code} ${envelope?.status_message ?? ''}`.trimEnd() : ''})`, details: { path, httpStatus: status, statusCode: code } };
  }
  const byHttp = HTTP_REASONS[status];
  if (byHttp) throw failure(byHttp, code, envelope?.status_message ?? `HTTP ${status}`, { path, httpStatus: status });
  if (status >= 300 || !envelope) throw fail('bad_answer', `${NAME} answered HTTP ${status} with ${envelope ? 'an unexpected body' : 'a body that is not JSON'} at ${path}`, { path, httpStatus: status });
  if (code !== 20000) throw failure(reasonOf(code), code, envelope.status_message, { path });
  const task = envelope.tasks?.[0];
  if (!task) throw fail('bad_answer', `${NAME} answered without a task at ${path}`, { path });
  const tc = task.status_code;
  if (tc === 20000) return { result: task.result ?? [] };
  if (tc !== undefined && tc >= 50000) return { retry: `${NAME} could not run the task (${`${tc} ${task.status_message ?? ''}`.trim()})`, details: { path, statusCode: tc } };
  throw failure(reasonOf(tc), tc, task.status_message, { path });
}

const HTTP_REASONS: Record<number, ProviderFailureReason> = { 401: 'auth', 402: 'payment', 404: 'bad_answer', 429: 'rate_limited' };

/** DataForSEO's internal status codes (appendix/errors) by what a person can do about them. */
function reasonOf(code: number | undefined): ProviderFailureReason {
  if (code === undefined) return 'bad_answer';
  if (code === 40100 || code === 40104) return 'auth';
  if (code === 40202 || code === 40209) return 'rate_limited';
  if (code >= 40200 && code < 40300) return 'payment';
  if (code >= 40500 && code < 40600) return 'invalid_field';
  return 'bad_answer';
}

const WHAT_TO_DO: Record<ProviderFailureReason, string> = {
  auth: 'The operator must check keywords.dataforseo.login and keywords.dataforseo.password (the API password from https://app.dataforseo.com/api-access, not the account password)',
  payment: 'The DataForSEO account needs funds or a plan for this API: the operator can check its balance at https://app.dataforseo.com',
  rate_limited: 'DataForSEO limits how many requests an account sends per minute: try again in a minute',
  invalid_field: 'Check the location and language (e.g. location 2840 or "United States", language en) and the keywords',
  unavailable: 'Try again later',
  timeout: 'Try again later',
  bad_answer: 'Check keywords.dataforseo.baseUrl (https://api.dataforseo.com, or https://sandbox.dataforseo.com for tests)',
};

const LEAD: Record<ProviderFailureReason, string> = {
  auth: 'refused the API login',
  payment: 'refused the request for billing reasons',
  rate_limited: 'is rate-limiting this account',
  invalid_field: 'refused a field of the request',
  unavailable: 'is unavailable',
  timeout: 'timed out',
  bad_answer: 'answered with an error',
};

/** A refusal the provider explained with a status code: what it said, then what to do. */
function failure(reason: ProviderFailureReason, code: number | undefined, message: string | undefined, details: Record<string, unknown>) {
  const said = [code, message?.trim().replace(/\.$/, '')].filter(Boolean).join(' ');
  return fail(reason, `${NAME} ${LEAD[reason]}${said ? ` (${said})` : ''}`, { ...details, statusCode: code });
}

const fail = (reason: ProviderFailureReason, lead: string, details: Record<string, unknown>) =>
  providerFailure(reason, `${lead}. ${WHAT_TO_DO[reason]}.`, { provider: 'dataforseo', ...details });

function parse(body: string): Envelope | undefined {
  try {
    const v = JSON.parse(body);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Envelope) : undefined;
  } catch {
    return undefined;
  }
}

/** The network error's own code (ECONNREFUSED, ENOTFOUND ...), never the request (its headers hold the credentials). */
function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

const seconds = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`);
const pause = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
