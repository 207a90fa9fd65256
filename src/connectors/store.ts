import { type Queryable, writeOn } from '../db/connect.js';
import { newId } from '../lib/ids.js';

export type ConnectorKind = 'headless' | 'webhook';

export interface Connector {
  id: string;
  workspaceId: string;
  kind: ConnectorKind;
  enabled: boolean;
  url: string | null;
  signingSecret: string | null;
  previousSecret: string | null;
  previousSecretUntil: string | null;
  disabledReason: string | null;
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}

type Row = Record<string, any>;

export const toConnector = (r: Row): Connector => ({
  id: r.id,
  workspaceId: r.workspace_id,
  kind: r.kind,
  enabled: Boolean(r.enabled),
  url: r.url ?? null,
  signingSecret: r.signing_secret ?? null,
  previousSecret: r.previous_secret ?? null,
  previousSecretUntil: r.previous_secret_until ?? null,
  disabledReason: r.disabled_reason ?? null,
  failingSince: r.failing_since ?? null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function listConnectors(db: Queryable, workspaceId: string): Promise<Connector[]> {
  return (await db('connectors').where({ workspace_id: workspaceId }).orderBy('kind')).map(toConnector);
}

export async function findConnector(db: Queryable, workspaceId: string, kind: ConnectorKind): Promise<Connector | undefined> {
  const row = await db('connectors').where({ workspace_id: workspaceId, kind }).first();
  return row ? toConnector(row) : undefined;
}

/** The workspace's connector of this kind, created (enabled) when missing: one per kind. */
export async function ensureConnector(db: Queryable, workspaceId: string, kind: ConnectorKind, now: string, fields: Row = {}): Promise<Connector> {
  await writeOn(db)('connectors')
    .insert({ id: newId('con'), workspace_id: workspaceId, kind, enabled: true, created_at: now, updated_at: now, ...fields })
    .onConflict(['workspace_id', 'kind'])
    .ignore();
  return (await findConnector(db, workspaceId, kind))!;
}

export async function updateConnector(db: Queryable, id: string, patch: Row): Promise<void> {
  await writeOn(db)('connectors').where({ id }).update(patch);
}

export async function deleteConnector(db: Queryable, id: string): Promise<void> {
  await writeOn(db)('connectors').where({ id }).delete();
}
