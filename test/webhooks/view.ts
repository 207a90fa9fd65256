import type { App } from '../../src/app.js';
import { findConnector } from '../../src/connectors/store.js';
import { listForArticle } from '../../src/connectors/publications.js';
import type { Received } from './receiver.js';

/**
 * What a receiver that applies each event when it arrives shows: the articles whose last event
 * was a publish or an update. The receiver of these tests answers late, but acts on receipt.
 */
export function receiverView(received: Received[]): Set<string> {
  const shown = new Set<string>();
  for (const r of received) {
    const { event, article } = r.body ?? {};
    if (event === 'article.published' || event === 'article.updated') shown.add(article.id);
    if (event === 'article.unpublished' || event === 'article.deleted') shown.delete(article.id);
  }
  return shown;
}

/** Whether svc has the article on the workspace's webhook (a publication exists). */
export async function onWebhook(app: App, workspaceId: string, articleId: string): Promise<boolean> {
  const webhook = await findConnector(app.db, workspaceId, 'webhook');
  return (await listForArticle(app.db, articleId)).some((p) => p.connectorId === webhook?.id);
}

/** The event seqs each article's deliveries arrived with, in arrival order (by X-Service-Event-Id). */
export async function arrivalSeqs(app: App, received: Received[]): Promise<Map<string, number[]>> {
  const rows: Array<{ id: string; seq: number | string }> = await app.db('webhook_events').select('id', 'seq');
  const seqOf = new Map(rows.map((r) => [r.id, Number(r.seq)]));
  const out = new Map<string, number[]>();
  for (const r of received) {
    const id = r.body?.article?.id as string;
    out.set(id, [...(out.get(id) ?? []), seqOf.get(r.body.eventId)!]);
  }
  return out;
}

/** Resolve once no event is waiting to be delivered (the outbox drained); fails after 20 s. */
export async function drained(app: App): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const row = await app.db('webhook_events').where({ status: 'pending' }).count({ n: '*' }).first();
    if (Number(row?.n) === 0) return;
    if (Date.now() > deadline) throw new Error(`outbox still holds ${row?.n} pending events`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** True when the seqs never go down (a repeat of the same event is allowed). */
export const inOrder = (seqs: number[]) => seqs.every((s, i) => i === 0 || s >= seqs[i - 1]);
