import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALIASES, SYSTEM_DATA_DIR, configLeaves, loadConfig, settingSource } from '../../src/config/load.js';
import { AppError } from '../../src/errors.js';
import { tempDir } from '../helpers/env.js';

const get = (obj: unknown, p: string): unknown => p.split('.').reduce<any>((o, k) => (o == null ? undefined : o[k]), obj);

function loadError(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected loadConfig to throw');
}

describe('config: database.url', () => {
  it('refuses a database.url that is not PostgreSQL instead of ignoring it for another SQLite file', () => {
    const dir = tempDir();
    const fromEnv = loadError(() => loadConfig({ env: { SVC_DATABASE_URL: path.join(dir, 'x.sqlite') }, cwd: dir }));
    expect(fromEnv.code).toBe('config_invalid');
    expect(fromEnv.message).toContain(`SVC_DATABASE_URL: "${path.join(dir, 'x.sqlite')}" is not a PostgreSQL URL`);
    expect(fromEnv.message).toContain('SVC_DATABASE_FILENAME');
    writeFileSync(path.join(dir, 'config.yaml'), 'database:\n  url: sqlite:///var/lib/svc/svc.sqlite\n');
    expect(loadError(() => loadConfig({ env: {}, cwd: dir })).message).toContain(`${path.join(dir, 'config.yaml')}: database.url: "sqlite:///var/lib/svc/svc.sqlite" is not a PostgreSQL URL`);
    expect(loadConfig({ env: { SVC_DATABASE_URL: 'postgresql://u@h:5432/db' }, cwd: tempDir() }).database.client).toBe('pg');
  });
});

describe('config: locating the file', () => {
  it('needs no file: defaults serve SQLite under ./data on 127.0.0.1:8080', () => {
    const dir = tempDir();
    const c = loadConfig({ env: {}, cwd: dir });
    expect(c.source).toBeNull();
    expect(c.server).toMatchObject({ host: '127.0.0.1', port: 8080, baseUrl: 'http://127.0.0.1:8080' });
    expect(c.dataDir).toBe(path.join(dir, 'data'));
    expect(c.database).toMatchObject({ client: 'sqlite3', filename: path.join(dir, 'data', 'svc.sqlite') });
    expect(c.webhooks.timeout).toBe(15_000);
    expect(c.webhooks.retrySchedule).toEqual([30_000, 120_000, 600_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000]);
    expect(Object.isFrozen(c.server)).toBe(true);
  });

  it('reads ./config.yaml from the working directory', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'config.yaml'), 'server:\n  port: 9100\nwebhooks:\n  timeout: 2s\n');
    const c = loadConfig({ env: {}, cwd: dir });
    expect(c.source).toBe(path.join(dir, 'config.yaml'));
    expect(c.server.port).toBe(9100);
    expect(c.webhooks.timeout).toBe(2000);
  });

  it('reads the file named by --config, else by SVC_CONFIG, relative to the working directory', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'config.yaml'), 'server: { port: 1111 }\n');
    writeFileSync(path.join(dir, 'a.yaml'), 'server: { port: 2222 }\n');
    writeFileSync(path.join(dir, 'b.yaml'), 'server: { port: 3333 }\n');
    expect(loadConfig({ env: { SVC_CONFIG: 'b.yaml' }, cwd: dir }).server.port).toBe(3333);
    expect(loadConfig({ env: { SVC_CONFIG: 'b.yaml' }, cwd: dir, configPath: 'a.yaml' }).server.port).toBe(2222);
  });

  it('refuses a named config file that does not exist', () => {
    const dir = tempDir();
    const err = loadError(() => loadConfig({ env: { SVC_CONFIG: 'missing.yaml' }, cwd: dir }));
    expect(err.code).toBe('config_invalid');
    expect(err.message).toBe(`Config file not found: ${path.join(dir, 'missing.yaml')} (named by SVC_CONFIG)`);
    expect(loadError(() => loadConfig({ env: {}, cwd: dir, configPath: 'missing.yaml' })).message).toContain('(named by --config)');
  });

  it('one search order for the CLI and the daemon: --config, SVC_CONFIG, the system file, then ./config.yaml; none reads no file', () => {
    const dir = tempDir();
    const elsewhere = tempDir();
    const systemConfig = path.join(dir, 'etc-svc-config.yaml');
    writeFileSync(path.join(elsewhere, 'config.yaml'), 'server: { port: 1111 }\n');
    writeFileSync(path.join(dir, 'named.yaml'), 'server: { port: 2222 }\n');
    // No system file: the working directory's.
    expect(loadConfig({ env: {}, cwd: elsewhere, systemConfig }).server.port).toBe(1111);
    writeFileSync(systemConfig, 'server: { port: 3333 }\n');
    // The system file is the same from any working directory, a config.yaml there included.
    expect(loadConfig({ env: {}, cwd: elsewhere, systemConfig })).toMatchObject({ source: systemConfig, server: { port: 3333 } });
    expect(loadConfig({ env: { SVC_CONFIG: path.join(dir, 'named.yaml') }, cwd: elsewhere, systemConfig }).server.port).toBe(2222);
    expect(loadConfig({ env: {}, cwd: elsewhere, systemConfig, configPath: path.join(dir, 'named.yaml') }).server.port).toBe(2222);
    const none = loadConfig({ env: { SVC_CONFIG: 'none' }, cwd: elsewhere, systemConfig });
    expect(none).toMatchObject({ source: null, server: { port: 8080 } });
    expect(loadConfig({ env: {}, cwd: elsewhere, systemConfig, configPath: 'none' }).source).toBeNull();
  });

  it('finds the data directory the way it finds the file, whatever the working directory', () => {
    const dir = tempDir();
    const cwd = tempDir();
    const systemConfig = path.join(dir, 'system.yaml');
    writeFileSync(systemConfig, 'server: { port: 3333 }\n');
    // The system file without dataDir: /var/lib/svc; SVC_DATA_DIR still wins (relative to the working directory).
    expect(loadConfig({ env: {}, cwd, systemConfig }).dataDir).toBe(SYSTEM_DATA_DIR);
    expect(loadConfig({ env: { SVC_DATA_DIR: 'here' }, cwd, systemConfig }).dataDir).toBe(path.join(cwd, 'here'));
    // A named file: a relative dataDir (or the default ./data) is relative to the file, not to the working directory.
    writeFileSync(path.join(dir, 'plain.yaml'), 'server: { port: 1 }\n');
    writeFileSync(path.join(dir, 'relative.yaml'), 'dataDir: state\n');
    expect(loadConfig({ env: {}, cwd, systemConfig, configPath: path.join(dir, 'plain.yaml') }).dataDir).toBe(path.join(dir, 'data'));
    const relative = loadConfig({ env: {}, cwd, systemConfig, configPath: path.join(dir, 'relative.yaml') });
    expect(relative.dataDir).toBe(path.join(dir, 'state'));
    expect(relative.database.filename).toBe(path.join(dir, 'state', 'svc.sqlite'));
  });

  it('knows where each setting came from, for messages', () => {
    const dir = tempDir();
    const file = path.join(dir, 'config.yaml');
    writeFileSync(file, 'database: { url: "postgres://svc@127.0.0.1:1/svc" }\nserver: { port: 9000 }\n');
    const c = loadConfig({ env: { SVC_BASE_URL: 'https://svc.example.org' }, cwd: dir, configPath: file, overrides: { 'server.host': '127.0.0.2' } });
    expect(settingSource(c, 'database.url')).toBe(`database.url in ${file}`);
    expect(settingSource(c, 'server.baseUrl')).toBe('SVC_BASE_URL');
    expect(settingSource(c, 'server.host')).toBe('--host');
    expect(settingSource(c, 'dataDir')).toBe('the default dataDir');
  });

  it('an empty file means defaults', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'config.yaml'), '# nothing yet\n');
    expect(loadConfig({ env: {}, cwd: dir }).server.port).toBe(8080);
  });
});

describe('config: SVC_* overrides', () => {
  // A value different from the default for every leaf, as an operator would type it.
  const SAMPLES: Record<string, [string, unknown]> = {
    dataDir: ['/srv/svc-state', '/srv/svc-state'],
    stateDir: ['/run/svc-elsewhere', '/run/svc-elsewhere'],
    'server.host': ['0.0.0.0', '0.0.0.0'],
    'server.baseUrl': ['https://svc.example.com', 'https://svc.example.com'],
    'server.allowedOrigins': ['https://a.example, https://b.example', ['https://a.example', 'https://b.example']],
    'database.client': ['pg', 'pg'],
    'database.filename': ['/srv/other.sqlite', '/srv/other.sqlite'],
    'database.url': ['postgres://svc@127.0.0.1:5432/svc', 'postgres://svc@127.0.0.1:5432/svc'],
    'logging.level': ['debug', 'debug'],
    'webhooks.retrySchedule': ['1s,2m', [1000, 120_000]],
    'webhooks.allowedHosts': ['hooks.internal', ['hooks.internal']],
    'keywords.provider': ['dataforseo', 'dataforseo'],
    'limits.store': ['memory', 'memory'],
    'redis.url': ['redis://127.0.0.1:6380/2', 'redis://127.0.0.1:6380/2'],
    'redis.keyPrefix': ['blog1:', 'blog1:'],
    'keywords.dataforseo.login': ['api@example.com', 'api@example.com'],
    'keywords.dataforseo.password': ['s3cret', 's3cret'],
    'keywords.dataforseo.baseUrl': ['https://sandbox.dataforseo.com', 'https://sandbox.dataforseo.com'],
    // At most half of the default heartbeatStaleAfter (10s), which it must stay within.
    'webhooks.heartbeatInterval': ['4s', 4000],
    'metrics.listen': ['127.0.0.1:9464', '127.0.0.1:9464'],
    'metrics.token': ['0123456789abcdef0123', '0123456789abcdef0123'],
  };
  // Settings that are only valid together with another one.
  const COMPANIONS: Record<string, Record<string, string>> = {
    'database.client': { SVC_DATABASE_URL: 'postgres://x@127.0.0.1/x' },
    'keywords.provider': { SVC_KEYWORDS_DATAFORSEO_LOGIN: 'l', SVC_KEYWORDS_DATAFORSEO_PASSWORD: 'p' },
  };

  it('every key of the schema has a variable named after its path, and it wins over the file', () => {
    const dir = tempDir();
    const defaults = loadConfig({ env: {}, cwd: dir });
    const leaves = configLeaves();
    expect(leaves.length).toBeGreaterThan(25);
    for (const leaf of leaves) {
      const def = get(defaults, leaf.path);
      let value: string;
      let expected: unknown;
      if (SAMPLES[leaf.path]) [value, expected] = SAMPLES[leaf.path];
      else if (leaf.kind === 'boolean') [value, expected] = [def ? 'off' : 'on', !def];
      else if (leaf.kind === 'number') [value, expected] = ['3', 3];
      else if (typeof def === 'number') [value, expected] = ['7s', 7000]; // durations
      else throw new Error(`no sample value for ${leaf.path}: add one to SAMPLES`);
      expect(expected, leaf.path).not.toEqual(def);
      const env = { [leaf.env]: value, ...COMPANIONS[leaf.path] };
      const c = loadConfig({ env, cwd: dir });
      expect(get(c, leaf.path), `${leaf.env} -> ${leaf.path}`).toEqual(expected);
    }
  });

  it('finds the state directory: a setting names the only one (relative to its file, or to the working directory); else the machine\'s, then the user\'s', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'svc.yaml'), 'stateDir: run\n');
    expect(loadConfig({ env: { SVC_CONFIG: path.join(dir, 'svc.yaml') }, cwd: '/', systemStateDir: '/m' }).stateDirs).toEqual([path.join(dir, 'run')]);
    expect(loadConfig({ env: { SVC_CONFIG: path.join(dir, 'svc.yaml'), SVC_STATE_DIR: 'here' }, cwd: dir, systemStateDir: '/m' }).stateDirs).toEqual([path.join(dir, 'here')]);
    expect(loadConfig({ env: { SVC_CONFIG: 'none', XDG_STATE_HOME: '/x' }, cwd: dir, systemStateDir: '/m' }).stateDirs).toEqual(['/m', '/x/svc']);
    // A relative XDG_STATE_HOME is invalid (XDG base directory spec): the default under HOME.
    expect(loadConfig({ env: { SVC_CONFIG: 'none', XDG_STATE_HOME: 'x', HOME: '/home/op' }, cwd: dir, systemStateDir: '/m' }).stateDirs).toEqual(['/m', '/home/op/.local/state/svc']);
  });

  it('derives the variable name from the key path', () => {
    const names = Object.fromEntries(configLeaves().map((l) => [l.path, l.env]));
    expect(names['webhooks.allowPrivateNetworks']).toBe('SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS');
    expect(names['oauth.accessTokenTtl']).toBe('SVC_OAUTH_ACCESS_TOKEN_TTL');
    expect(names.dataDir).toBe('SVC_DATA_DIR');
    expect(names['database.url']).toBe('SVC_DATABASE_URL');
  });

  it('has the short aliases SVC_HOST, SVC_PORT, SVC_BASE_URL and SVC_LOG_LEVEL', () => {
    expect(Object.keys(ALIASES).sort()).toEqual(['SVC_BASE_URL', 'SVC_HOST', 'SVC_LOG_LEVEL', 'SVC_PORT']);
    const c = loadConfig({ env: { SVC_HOST: '0.0.0.0', SVC_PORT: '9000', SVC_BASE_URL: 'https://svc.example.com/', SVC_LOG_LEVEL: 'error' }, cwd: tempDir() });
    expect(c.server).toMatchObject({ host: '0.0.0.0', port: 9000, baseUrl: 'https://svc.example.com' });
    expect(c.logging.level).toBe('error');
  });

  it('the default base URL names the port and a reachable host', () => {
    expect(loadConfig({ env: { SVC_PORT: '9000' }, cwd: tempDir() }).server.baseUrl).toBe('http://127.0.0.1:9000');
    expect(loadConfig({ env: { SVC_HOST: '0.0.0.0' }, cwd: tempDir() }).server.baseUrl).toBe('http://localhost:8080');
    expect(loadConfig({ env: { SVC_HOST: '::1' }, cwd: tempDir() }).server.baseUrl).toBe('http://[::1]:8080');
  });

  it('SVC_DATA_DIR moves the SQLite file', () => {
    const dir = tempDir();
    const c = loadConfig({ env: { SVC_DATA_DIR: 'state' }, cwd: dir });
    expect(c.dataDir).toBe(path.join(dir, 'state'));
    expect(c.database.filename).toBe(path.join(dir, 'state', 'svc.sqlite'));
  });

  it('a postgres:// SVC_DATABASE_URL switches to PostgreSQL', () => {
    for (const url of ['postgres://svc@127.0.0.1:5432/svc', 'postgresql://svc@db/svc']) {
      const c = loadConfig({ env: { SVC_DATABASE_URL: url }, cwd: tempDir() });
      expect(c.database).toMatchObject({ client: 'pg', url });
    }
  });

  it('precedence: flags over SVC_* over the file over defaults', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'config.yaml'), 'server: { host: 10.0.0.1, port: 1111 }\nlogging: { level: debug }\n');
    const c = loadConfig({ env: { SVC_PORT: '2222', SVC_HOST: '10.0.0.2' }, cwd: dir, overrides: { 'server.port': 3333 } });
    expect(c.server.port).toBe(3333);
    expect(c.server.host).toBe('10.0.0.2');
    expect(c.logging.level).toBe('debug');
    expect(c.content.rateLimitPerMinute).toBe(600);
  });

  it('ignores empty variables', () => {
    expect(loadConfig({ env: { SVC_PORT: '' }, cwd: tempDir() }).server.port).toBe(8080);
  });
});

describe('config: validation', () => {
  it('reports every bad variable at once, each by name', () => {
    const err = loadError(() =>
      loadConfig({ env: { SVC_PORT: 'abc', SVC_LOG_LEVEL: 'loud', SVC_WEBHOOKS_TIMEOUT: 'soon', SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'maybe', SVC_BASE_URL: 'not a url' }, cwd: tempDir() }),
    );
    expect(err.code).toBe('config_invalid');
    expect(err.message).toMatch(/^Invalid configuration:/);
    expect(err.message).toContain('SVC_PORT: "abc" is not a valid number (for server.port)');
    expect(err.message).toContain('SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: "maybe" is not a valid boolean');
    expect(err.message).toMatch(/SVC_LOG_LEVEL: must be one of .*debug.*, not "loud"/);
    expect(err.message).toContain('SVC_WEBHOOKS_TIMEOUT: "soon" is not a duration');
    expect(err.message).toMatch(/SVC_BASE_URL: must be a URL, e.g. https:\/\/example.com/);
    expect(err.hint).toMatch(/config\.example\.yaml/);
  });

  it('names the bad key and file for file values, unknown keys included', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'svc.yaml'), 'server:\n  port: 70000\n  bogus: 1\nwebhooks:\n  concurrency: 0\n  retrySchedule: [30s, later]\nextra: true\n');
    const err = loadError(() => loadConfig({ env: {}, cwd: dir, configPath: 'svc.yaml' }));
    const lines = err.message.split('\n').slice(1).map((l) => l.trim());
    expect(lines).toEqual(
      expect.arrayContaining([
        `- ${path.join(dir, 'svc.yaml')}: server.port: must be at most 65535`,
        `- ${path.join(dir, 'svc.yaml')}: server: unknown key "bogus"`,
        `- ${path.join(dir, 'svc.yaml')}: webhooks.concurrency: must be at least 1`,
        `- ${path.join(dir, 'svc.yaml')}: webhooks.retrySchedule.1: "later" is not a duration (use e.g. 500ms, 30s, 2m, 1h, 5d)`,
        `- ${path.join(dir, 'svc.yaml')}: (top level): unknown key "extra"`,
      ]),
    );
    expect(lines).toHaveLength(5);
  });

  it('a value that comes from a variable is blamed on the variable, not the file', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'config.yaml'), 'server: { port: 9000 }\n');
    const err = loadError(() => loadConfig({ env: { SVC_SERVER_PORT: '-1' }, cwd: dir }));
    expect(err.message).toContain('SVC_SERVER_PORT: must be at least 0');
  });

  it('refuses a file that is not YAML, or not a mapping', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'bad.yaml'), 'server: [unclosed\n');
    expect(loadError(() => loadConfig({ env: {}, cwd: dir, configPath: 'bad.yaml' })).message).toMatch(new RegExp(`^Cannot read ${path.join(dir, 'bad.yaml')}: `));
    writeFileSync(path.join(dir, 'list.yaml'), '- a\n- b\n');
    expect(loadError(() => loadConfig({ env: {}, cwd: dir, configPath: 'list.yaml' })).message).toBe(`${path.join(dir, 'list.yaml')} must be a YAML mapping of keys to values`);
  });

  it('pg needs a connection string', () => {
    const err = loadError(() => loadConfig({ env: { SVC_DATABASE_CLIENT: 'pg' }, cwd: tempDir() }));
    expect(err.message).toContain('database.url: required when database.client is pg');
    expect(err.hint).toContain('SVC_DATABASE_URL');
  });
});

describe('config: unknown SVC_* variables', () => {
  it('lists SVC_* variables that name no setting (typos), but not SVC_CONFIG or the test variables', () => {
    const dir = tempDir();
    const c = loadConfig({ env: { SVC_PROT: '9000', SVC_PORT: '9001', SVC_TEST_DATABASE_URL: 'x', SVC_WEBHOOK_TIMEOUT: '1s', PATH: '/bin' }, cwd: dir });
    expect(c.unknownEnv).toEqual(['SVC_PROT', 'SVC_WEBHOOK_TIMEOUT']);
    expect(c.server.port).toBe(9001);
  });
});
