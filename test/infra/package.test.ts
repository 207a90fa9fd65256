import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/env.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string };

describe('the npm package ships exactly what runs', () => {
  it('npm pack lists the compiled code, migrations, README, docs, licence and changelog, and nothing else', () => {
    // --ignore-scripts: the list from the build already in dist/ (prepack would rebuild it).
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const [packed] = JSON.parse(out) as Array<{ name: string; files: Array<{ path: string }> }>;
    expect(packed.name).toBe('svc-daemon');
    const files = packed.files.map((f) => f.path);
    const allowed = [
      /^(README|CHANGELOG)\.md$/,
      /^LICENSE$/,
      /^package\.json$/,
      /^config\.example\.yaml$/,
      /^bin\/svc\.js$/,
      /^docs\/[\w-]+\.md$/,
      /^dist\/build-info\.json$/,
      /^dist\/src\/.+\.(js|d\.ts)$/,
      /^dist\/migrations\/[\w-]+\.js$/,
    ];
    expect(files.filter((f) => !allowed.some((re) => re.test(f)))).toEqual([]);
    const migrations = readdirSync(path.join(root, 'migrations')).filter((f) => f.endsWith('.ts')).map((f) => `dist/migrations/${f.replace(/\.ts$/, '.js')}`);
    const docs = readdirSync(path.join(root, 'docs')).map((f) => `docs/${f}`);
    expect(files).toEqual(expect.arrayContaining(['bin/svc.js', 'dist/src/main.js', 'dist/src/index.js', 'README.md', 'LICENSE', 'CHANGELOG.md', 'config.example.yaml', ...migrations, ...docs]));
  });

  it('svc --version names the release and the commit', async () => {
    const r = await spawnCli(['--version'], { env: { SVC_CONFIG: 'none' }, cwd: tempDir() });
    expect(r.code).toBe(0);
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    expect(r.stdout).toBe(`svc ${pkg.version} (${head})\n`);
  });

});
