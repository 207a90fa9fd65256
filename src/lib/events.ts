import { EventEmitter } from 'node:events';

/** In-process signals between features; cross-process changes are seen through the database. */
export interface AppEventMap {
  /** What the content API serves for this workspace changed (publish, unpublish, delete, settings). */
  'content.changed': [{ workspaceId: string }];
  /** New webhook events were written to the outbox. */
  'webhooks.enqueued': [{ workspaceId: string }];
  /** The webhook worker looked for due events and claimed `claimed` of them (what it claims, it sends). */
  'webhooks.looked': [{ claimed: number }];
  /** An attempt of this process ended; `recorded` is false when its lease was lost and nothing was written. */
  'webhooks.attempted': [{ eventId: string; deliveryId: string; recorded: boolean }];
  /** A principal (API key, OAuth connection) or blog key changed: drop cached auth state. */
  'auth.changed': [{ workspaceId: string }];
  /** The scheduler looked for due articles (at `at`, the clock's time) and published `published` of them. */
  'scheduler.ticked': [{ at: string; published: number }];
}

export class AppEvents extends EventEmitter<AppEventMap> {}
