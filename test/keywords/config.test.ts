import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { tempDir } from '../helpers/env.js';

describe('keywords settings', () => {
  it('defaults to no provider and DataForSEO production', () => {
    const c = loadConfig({ env: {}, cwd: tempDir() });
    expect(c.keywords).toEqual({ provider: 'none', dataforseo: { baseUrl: 'https://api.dataforseo.com', timeout: 40_000, retries: 2 } });
  });

  it('needs the API login and password with provider dataforseo, naming both variables', () => {
    expect(() => loadConfig({ env: { SVC_KEYWORDS_PROVIDER: 'dataforseo' }, cwd: tempDir() })).toThrow(
      'Invalid configuration:\n  - keywords.dataforseo.login: required when keywords.provider is dataforseo (SVC_KEYWORDS_DATAFORSEO_LOGIN)\n  - keywords.dataforseo.password: required when keywords.provider is dataforseo (SVC_KEYWORDS_DATAFORSEO_PASSWORD)',
    );
    const c = loadConfig({ env: { SVC_KEYWORDS_PROVIDER: 'dataforseo', SVC_KEYWORDS_DATAFORSEO_LOGIN: 'me@example.com', SVC_KEYWORDS_DATAFORSEO_PASSWORD: 'x', SVC_KEYWORDS_DATAFORSEO_BASE_URL: 'https://sandbox.dataforseo.com' }, cwd: tempDir() });
    expect(c.keywords.dataforseo).toMatchObject({ login: 'me@example.com', baseUrl: 'https://sandbox.dataforseo.com' });
  });

  it('refuses an unknown provider and a base URL carrying credentials, without echoing them', () => {
    expect(() => loadConfig({ env: { SVC_KEYWORDS_PROVIDER: 'semrush' }, cwd: tempDir() })).toThrow(/SVC_KEYWORDS_PROVIDER: must be one of none, dataforseo, not "semrush"/);
    let message = '';
    try {
      loadConfig({ env: { SVC_KEYWORDS_DATAFORSEO_BASE_URL: 'https://me:hunter2@api.dataforseo.com' }, cwd: tempDir() });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe('Invalid configuration:\n  - SVC_KEYWORDS_DATAFORSEO_BASE_URL: must be an http(s) URL without credentials in it');
  });
});
