import type { Knex } from 'knex';

// Browser sessions, login throttling and the OAuth authorization server for agents (issue 6).
// Every secret (session cookie, code, access and refresh token, client secret) is stored only
// as its SHA-256 hex digest.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sessions', (t) => {
    t.string('id_hash', 64).primary();
    // Null until the person signs in (an anonymous session carries the login form's CSRF token).
    t.string('user_id', 40).nullable().references('users.id').onDelete('CASCADE');
    t.string('csrf_token', 64).notNullable();
    t.string('created_at', 32).notNullable();
    t.string('expires_at', 32).notNullable();
    t.index(['user_id']);
    t.index(['expires_at']);
  });

  // Failed sign-ins per key (`email:<address>` or `ip:<address>`) in a fixed window.
  await knex.schema.createTable('login_attempts', (t) => {
    t.string('key', 400).primary();
    t.integer('failures').notNullable().defaultTo(0);
    t.string('window_start', 32).notNullable();
  });

  await knex.schema.createTable('oauth_clients', (t) => {
    t.string('id', 60).primary();
    t.string('secret_hash', 64).nullable();
    t.string('auth_method', 40).notNullable();
    t.string('client_name', 200).nullable();
    t.text('redirect_uris').notNullable(); // JSON array
    t.text('metadata').notNullable(); // JSON: the registered metadata, echoed as sent
    t.string('created_at', 32).notNullable();
    // Set at the first approval; clients never granted are removed after oauth.unusedClientExpiry.
    t.string('first_granted_at', 32).nullable();
    t.index(['first_granted_at', 'created_at']);
  });

  // An authorization request waiting on the consent screen, bound to one browser session.
  await knex.schema.createTable('oauth_requests', (t) => {
    t.string('id_hash', 64).primary();
    t.string('session_hash', 64).notNullable().references('sessions.id_hash').onDelete('CASCADE');
    t.string('client_id', 60).notNullable().references('oauth_clients.id').onDelete('CASCADE');
    t.text('params').notNullable(); // JSON: redirect_uri, state, code_challenge, scopes, resource
    t.string('expires_at', 32).notNullable();
  });

  // user x workspace x client x scopes.
  await knex.schema.createTable('oauth_connections', (t) => {
    t.string('id', 40).primary();
    t.string('client_id', 60).notNullable().references('oauth_clients.id').onDelete('CASCADE');
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('scopes').notNullable(); // JSON array
    t.string('created_at', 32).notNullable();
    t.string('last_used_at', 32).notNullable();
    t.string('revoked_at', 32).nullable();
    t.string('revoked_reason', 60).nullable();
    t.index(['user_id']);
    t.index(['workspace_id']);
  });

  await knex.schema.createTable('oauth_codes', (t) => {
    t.string('code_hash', 64).primary();
    t.string('client_id', 60).notNullable().references('oauth_clients.id').onDelete('CASCADE');
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('scopes').notNullable();
    t.string('redirect_uri', 2000).nullable(); // null when the request named none (one registered)
    t.string('code_challenge', 200).notNullable();
    t.string('resource', 2000).nullable();
    t.string('expires_at', 32).notNullable();
    t.string('used_at', 32).nullable();
    // The connection the exchange created: revoked when the code is presented again.
    t.string('connection_id', 40).nullable();
  });

  await knex.schema.createTable('oauth_tokens', (t) => {
    t.string('token_hash', 64).primary();
    t.string('connection_id', 40).notNullable().references('oauth_connections.id').onDelete('CASCADE');
    t.string('kind', 10).notNullable(); // access | refresh
    t.string('created_at', 32).notNullable();
    t.string('expires_at', 32).nullable(); // access tokens
    t.string('rotated_at', 32).nullable(); // refresh tokens: when a successor was issued
    t.index(['connection_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['oauth_tokens', 'oauth_codes', 'oauth_connections', 'oauth_requests', 'oauth_clients', 'login_attempts', 'sessions']) {
    await knex.schema.dropTableIfExists(table);
  }
}
