import type { Command } from 'commander';
import type { App } from '../app.js';
import type { Io } from './io.js';

// PLACEHOLDER: svc webhook ... (issue 4).
export function registerWebhooks(_program: Command, _io: Io): void {}

/** What to tell the operator after a change queued a webhook event (issue 4 refines it). */
export async function webhookQueueNote(_app: App): Promise<string> {
  return 'Webhook event queued for delivery.';
}
