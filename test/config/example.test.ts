import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { configLeaves, loadConfig } from '../../src/config/load.js';
import { tempDir } from '../helpers/env.js';

const EXAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../config.example.yaml');

describe('config.example.yaml', () => {
  const text = readFileSync(EXAMPLE, 'utf8');
  const parsed = YAML.parse(text) as Record<string, any>;

  it('documents every key of the schema, in its section (commented out when it has no default)', () => {
    const missing: string[] = [];
    for (const leaf of configLeaves()) {
      const parts = leaf.path.split('.');
      // Nested sections too (keywords.dataforseo.login): the parent mapping of the key.
      const section = parts.slice(0, -1).reduce<Record<string, any> | undefined>((o, p) => o?.[p], parsed);
      const key = parts[parts.length - 1];
      if (section && key in section) continue;
      // Optional keys without a default appear commented: "  # baseUrl: https://...", indented as the key.
      const commented = new RegExp(`^ {${2 * (parts.length - 1)}}# ${key}:`, 'm');
      const sectionText = parts.length > 1 ? text.slice(text.search(new RegExp(`^${parts[0]}:`, 'm'))).split(/\n(?=\S)/)[0] : text;
      if (!commented.test(sectionText)) missing.push(leaf.path);
    }
    expect(missing).toEqual([]);
  });

  it('holds no key the schema does not know (loading it succeeds)', () => {
    const dir = tempDir();
    copyFileSync(EXAMPLE, path.join(dir, 'config.yaml'));
    expect(() => loadConfig({ env: {}, cwd: dir })).not.toThrow();
  });

  it('shows the defaults: loading it gives the same config as no file at all', () => {
    const dir = tempDir();
    const none = loadConfig({ env: {}, cwd: dir });
    copyFileSync(EXAMPLE, path.join(dir, 'config.yaml'));
    const example = loadConfig({ env: {}, cwd: dir });
    expect({ ...example, source: null, sources: {} }).toEqual(none);
  });

  it('names the short variables operators use', () => {
    for (const name of ['SVC_DATA_DIR', 'SVC_HOST', 'SVC_PORT', 'SVC_BASE_URL', 'SVC_DATABASE_URL', 'SVC_LOG_LEVEL', 'SVC_CONFIG']) {
      expect(text, name).toContain(name);
    }
  });
});
