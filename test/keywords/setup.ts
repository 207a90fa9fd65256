import { onTestFinished } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import type { Scope } from '../../src/auth/scopes.js';
import { updateWorkspace } from '../../src/workspaces/service.js';
import { TestClock } from '../helpers/clock.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { type Agent, connect } from '../mcp/helpers.js';
import { startFakeDataForSeo } from './fake-dataforseo.js';

/**
 * A daemon whose keyword provider is the fake DataForSEO (unless provider 'none'), one workspace
 * with an admin, and agents connected with API keys of the given scopes.
 */
export async function keywordWorkspace(options: { allowance?: number; provider?: 'none'; overrides?: Record<string, unknown> } = {}) {
  const fake = await startFakeDataForSeo();
  const clock = TestClock.midMonth();
  const d = await startDaemon({ jobs: false, clock, env: options.provider === 'none' ? {} : fake.env, overrides: options.overrides });
  // Each test has its own daemon: stop it with the test, so the database connections of a whole
  // file (pools of up to 4 on PostgreSQL) are not held until the file ends.
  onTestFinished(() => d.stop());
  const ws = await seedWorkspace(d.app);
  if (options.allowance !== undefined) await updateWorkspace(d.app, ws.id, { allowanceKeywords: options.allowance });
  const admin = await seedUser(d.app, ws, 'admin');
  const agent = async (scopes: Scope[] = ['read', 'content']) => {
    const { key } = await createApiKey(d.app, { workspaceId: ws.id, userId: admin.id, name: `key-${scopes.join('-')}`, scopes });
    return connect(d, key);
  };
  return { d, ws, admin, fake, clock, agent };
}

/** The "Keyword lookups: used/allowed" line of get_site_profile. */
export async function lookupsLine(agent: Agent): Promise<string> {
  const profile = await agent.call('get_site_profile');
  return /^Keyword lookups: .*$/m.exec(profile.text)![0];
}
