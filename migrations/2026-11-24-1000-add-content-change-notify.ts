import type { Knex } from 'knex';

// PostgreSQL only (SQLite has its change signal, src/db/sqlite-change-signal.ts): every change of a
// workspace's content_version (publish, unpublish, delete, blog key changes) notifies channel
// svc_content with the workspace id, at commit, whoever wrote it: daemons of any version, the CLI.
// A workspace row inserted (a copy or restore bringing back an id a daemon has cached) notifies its
// id too, and a TRUNCATE (svc db copy --force) notifies '*': forget every workspace.
// Daemons LISTEN (src/db/pg-change-signal.ts) instead of reading the version per request. A
// trigger rather than a NOTIFY in our code, so writers of the previous version notify too during a
// rolling upgrade. The one exception to "knex builders only": a trigger has no builder.
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.raw(`
    CREATE OR REPLACE FUNCTION svc_notify_content_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_notify('svc_content', '*');
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('svc_content', OLD.id);
      ELSIF TG_OP = 'INSERT' THEN
        PERFORM pg_notify('svc_content', NEW.id);
      ELSIF NEW.content_version IS DISTINCT FROM OLD.content_version THEN
        PERFORM pg_notify('svc_content', NEW.id);
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw('CREATE TRIGGER workspaces_content_change AFTER INSERT OR UPDATE OF content_version OR DELETE ON workspaces FOR EACH ROW EXECUTE FUNCTION svc_notify_content_change()');
  await knex.raw('CREATE TRIGGER workspaces_content_truncate AFTER TRUNCATE ON workspaces FOR EACH STATEMENT EXECUTE FUNCTION svc_notify_content_change()');
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.raw('DROP TRIGGER IF EXISTS workspaces_content_truncate ON workspaces');
  await knex.raw('DROP TRIGGER IF EXISTS workspaces_content_change ON workspaces');
  await knex.raw('DROP FUNCTION IF EXISTS svc_notify_content_change()');
}
