import type { Knex } from 'knex';
import { down as dropTriggers, up as createTriggers } from './2026-11-24-1000-add-content-change-notify.js';

// PostgreSQL only: nothing listens for the content-change NOTIFY any more (daemons read the
// content version per request), so the trigger no longer fires on every publish. Old daemons
// still running during a rolling upgrade do not depend on it either.
export async function up(knex: Knex): Promise<void> {
  await dropTriggers(knex);
}

export async function down(knex: Knex): Promise<void> {
  await createTriggers(knex);
}
