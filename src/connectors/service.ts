import type { Ctx } from '../context.js';
import { listConnectors } from './store.js';

/** Connectors of a workspace as shown to operators (secrets never included). */
export async function listConnectorsFor(ctx: Ctx, workspaceId: string) {
  return (await listConnectors(ctx.db, workspaceId)).map((c) => ({
    id: c.id,
    kind: c.kind,
    enabled: c.enabled,
    url: c.url,
    disabledReason: c.disabledReason,
    failingSince: c.failingSince,
  }));
}
