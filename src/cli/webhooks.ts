import type { Command } from 'commander';
import type { App } from '../app.js';
import { getArticle } from '../articles/service.js';
import { AppError, isAppError } from '../errors.js';
import { daemonStatus, describeHolder, describeLease } from '../webhooks/health.js';
import { describeWebhook, disableWebhook, enableWebhook, listWebhookDeliveries, redeliver, removeWebhook, rotateSecret, sendTest, setWebhook } from '../webhooks/service.js';
import { checkTargetResolves, parseTargetUrl, privateAllowed } from '../webhooks/targets.js';
import { confirm } from './ask.js';
import { YES_OPTION } from './destructive.js';
import { act, daemonsServing, intOption } from './harness.js';
import { type Io, fit, header, table } from './io.js';
import { escapeLine } from './terminal-text.js';
import { registerWebhookListen } from './webhook-listen.js';

const WS = ['-w, --workspace <id|name>', 'workspace (optional when there is only one)'] as const;
type WsOpts = { workspace?: string };

export function registerWebhooks(program: Command, io: Io): void {
  const webhook = program.command('webhook').alias('webhooks').description('the webhook connector: signed POSTs to your receiver on publish, update, unpublish and delete');

  webhook
    .command('set')
    .description('create or change the workspace webhook (a new webhook gets a generated signing secret)')
    .option(...WS)
    .requiredOption('--url <url>', 'receiver endpoint (http or https)')
    .option('--secret <secret>', 'use this signing secret')
    .option('--generate-secret', 'replace the signing secret with a new random one')
    .action(
      act<WsOpts & { url: string; secret?: string; generateSecret?: boolean }>(io, async ({ app, opts, out, workspace }) => {
        const ws = await workspace();
        const { connector, secret, resolved } = await setWebhook(app, ws, { url: opts.url, secret: opts.secret, generateSecret: opts.generateSecret });
        if (!resolved) out.note(`note: ${new URL(connector.url!).hostname} does not resolve right now; it is checked again on every delivery.`);
        const privateNote = await daemonMayRefuse(app, new URL(connector.url!));
        if (privateNote) out.note(privateNote);
        out.result({ url: connector.url, enabled: connector.enabled, secret }, () =>
          [
            `Webhook of ${ws.name} sends to ${connector.url}${connector.enabled ? '' : ' (disabled: svc webhook enable)'}`,
            secret ? `Signing secret: ${secret}\n(give it to your receiver; svc webhook show --show-secret prints it again)` : 'Signing secret unchanged.',
          ].join('\n'),
        );
      }),
    );

  webhook
    .command('show')
    .description('the webhook, its health, its queue and whether a daemon is delivering')
    .option(...WS)
    .option('--show-secret', 'print the signing secret in full')
    .action(
      act<WsOpts & { showSecret?: boolean }>(io, async ({ app, opts, out, workspace }) => {
        const w = await describeWebhook(app, await workspace(), { revealSecret: opts.showSecret });
        out.result(w, () =>
          [
            `Webhook of ${w.workspace}`,
            `  url:      ${w.url}`,
            `  state:    ${w.enabled ? 'enabled' : `DISABLED: ${w.disabledReason ?? 'no reason recorded'}`}`,
            ...(w.failingSince ? [`  failing:  every delivery has failed since ${w.failingSince}`] : []),
            `  secret:   ${w.secret}${w.previousSecretUntil ? ` (the previous secret also signs until ${w.previousSecretUntil})` : ''}`,
            `  events:   ${w.events.pending} pending, ${w.events.delivered} delivered, ${w.events.failed} failed${w.oldestPendingAt ? ` (oldest pending from ${w.oldestPendingAt})` : ''}`,
            ...(w.daemon.running ? w.daemon.daemons.map((d, i) => `  ${i === 0 ? 'daemon: ' : '        '}  ${describeHolder(d)}`) : ['  daemon:   not running: queued events wait until svc serve runs']),
            ...w.leases.map((l, i) => `  ${i === 0 ? 'leases: ' : '        '}  ${describeLease(l)}`),
          ]
            .map(escapeLine) // host names and reasons come from the database
            .join('\n'),
        );
      }),
    );

  for (const [name, description, fn] of [
    ['enable', 'resume deliveries: queued events go out at once (also after a 410 or after 5 days of failures)', enableWebhook],
    ['disable', 'pause deliveries; events stay queued until enabled', disableWebhook],
  ] as const) {
    webhook
      .command(name)
      .description(description)
      .option(...WS)
      .action(
        act<WsOpts>(io, async ({ app, out, workspace }) => {
          const c = await fn(app, await workspace());
          out.result({ url: c.url, enabled: c.enabled, disabledReason: c.disabledReason }, () => `Webhook ${c.enabled ? 'enabled' : 'disabled'} (${c.url})`);
        }),
      );
  }

  webhook
    .command('remove')
    .description('remove the webhook with its queued events and delivery log')
    .option(...WS)
    .option(...YES_OPTION)
    .action(
      act<WsOpts & { yes?: boolean }>(io, async ({ app, opts, out, workspace }) => {
        const ws = await workspace();
        await confirm(io, opts.yes, `Remove the webhook of ${ws.name}, its queued events and its delivery log?`);
        await removeWebhook(app, ws);
        out.result({ removed: true }, () => `Webhook of ${ws.name} removed`);
      }),
    );

  webhook
    .command('rotate-secret')
    .description('new signing secret; the old one keeps signing alongside it during the grace period')
    .option(...WS)
    .option('--grace <duration>', 'how long the old secret still signs (0 to stop at once)', '24h')
    .option(...YES_OPTION)
    .action(
      act<WsOpts & { grace: string; yes?: boolean }>(io, async ({ app, opts, out, workspace }) => {
        const ws = await workspace();
        const r = await rotateSecret(app, ws, opts.grace, () =>
          confirm(io, opts.yes, `Replace the signing secret of ${ws.name}'s webhook? After the grace period (${opts.grace}) the receiver must check the new one.`),
        );
        out.result(r, () => `New signing secret: ${r.secret}\n${r.previousSecretUntil ? `The previous secret also signs until ${r.previousSecretUntil}.` : 'The previous secret no longer signs.'}`);
      }),
    );

  webhook
    .command('test')
    .description('send a test event now and print the answer; exits 0 only on a 2xx')
    .option(...WS)
    .action(
      act<WsOpts>(io, async ({ app, out, workspace }) => {
        const r = await sendTest(forTheCommand(app), await workspace());
        const summary = { url: r.url, ok: r.ok, status: r.status, durationMs: r.durationMs, response: r.response, deliveryId: r.deliveryId, eventId: r.eventId };
        // The receiver's words are escaped: it must not drive the operator's terminal.
        if (!r.ok) throw new AppError('webhook_test_failed', 424, `Test delivery to ${r.url} failed: ${escapeLine(r.error ?? '')} after ${r.durationMs} ms${r.response ? `\nreceiver answered: ${escapeLine(r.response)}` : ''}`, { details: summary });
        out.result(summary, () => `test -> ${r.url}: HTTP ${r.status} in ${r.durationMs} ms\n${escapeLine(r.response) || '(empty answer)'}`);
      }),
    );

  webhook
    .command('deliveries')
    .description('the attempt log, newest first')
    .option(...WS)
    .option('--article <id|slug>', 'only this article')
    .option('--failed', 'only failed attempts')
    .option('--limit <n>', 'how many', '50')
    .action(
      act<WsOpts & { article?: string; failed?: boolean; limit: string }>(io, async ({ app, opts, out, workspace }) => {
        const ws = await workspace();
        const articleId = opts.article ? await articleIdOf(app, ws, opts.article) : undefined;
        const rows = await listWebhookDeliveries(app, ws, { articleId, failed: opts.failed, limit: intOption(opts.limit, '--limit', 1, 500) });
        const columns = (io.stdout as { columns?: number }).columns ?? 80;
        out.result(rows, () => deliveriesTable(rows, opts.article || columns < 100 ? 80 : columns));
      }),
    );

  webhook
    .command('redeliver')
    .description('send an event again now (by event id evt_... or delivery id dlv_...)')
    .argument('<event-or-delivery-id>')
    .option(...WS)
    .action(
      act<WsOpts>(io, async ({ app, args, out, workspace }) => {
        const r = await redeliver(forTheCommand(app), await workspace(), args[0]);
        const summary = { eventId: r.eventId, event: r.event, attempt: r.attempt, ok: r.ok, status: r.status, durationMs: r.durationMs, deliveryId: r.deliveryId, response: r.response, nextAttemptAt: r.nextAttemptAt };
        if (!r.ok) {
          const next = r.nextAttemptAt ? ` (the daemon retries at ${r.nextAttemptAt})` : '';
          throw new AppError('redelivery_failed', 424, `Redelivery of ${r.event} ${r.eventId} failed: ${escapeLine(r.error ?? '')}${next}`, { details: summary });
        }
        out.result(summary, () => `Redelivered ${r.event} ${r.eventId}: HTTP ${r.status} in ${r.durationMs} ms (delivery ${r.deliveryId}, attempt ${r.attempt})`);
      }),
    );

  registerWebhookListen(webhook, io);
}

/**
 * The delivery's outcome is this command's own output: the "webhook delivery failed" warning the
 * delivery code logs is for the daemon's log, not for the operator's terminal (it would say it twice).
 */
function forTheCommand(app: App): App {
  return { ...app, log: app.log.child({}, { level: app.log.levelVal > 40 ? app.log.level : 'error' }) };
}

/**
 * The attempt log in 80 columns (a default terminal): time to the minute (UTC), the event without its
 * `article.` prefix, attempt, HTTP status, the result cut to what is left, and the delivery id
 * that `svc webhook redeliver` takes. A terminal of 100 columns or more also shows the article
 * (else --article picks one); --json has every field.
 */
function deliveriesTable(rows: Awaited<ReturnType<typeof listWebhookDeliveries>>, width: number): string {
  const view = rows.map((d) => ({
    when: d.createdAt.slice(5, 16).replace('T', ' '),
    event: d.event.replace(/^article\./, ''),
    article: d.articleId,
    try: `#${d.attempt}`,
    http: d.statusCode ?? '-',
    result: d.ok ? `ok ${d.durationMs}ms` : escapeLine(d.error ?? 'failed'),
    id: d.id,
  }));
  const columns = width < 100 ? ['when', 'event', 'try', 'http', 'result', 'id'] : ['when', 'event', 'article', 'try', 'http', 'result', 'id'];
  // Every column but RESULT has a known width: RESULT gets what is left.
  const fixed = columns.filter((c) => c !== 'result').reduce((n, c) => n + Math.max(header(c).length, ...view.map((v) => String(v[c as keyof typeof v]).length)) + 2, 0);
  const room = Math.max(10, width - fixed);
  return table(view.map((v) => ({ ...v, result: fit(v.result, room) })), columns);
}

async function articleIdOf(app: App, ws: Parameters<typeof getArticle>[1], ref: string): Promise<string> {
  try {
    return (await getArticle(app, ws, ref)).id;
  } catch (err) {
    if (isAppError(err) && err.code === 'not_found') return ref; // a deleted article: its id is still in the log
    throw err;
  }
}

/** What to tell the operator after a change queued a webhook event: delivered now, or waiting for a daemon. */
export async function webhookQueueNote(app: App): Promise<string> {
  const status = await daemonStatus(app);
  if (status.running) return `Webhook event queued; the running daemon (pid ${status.daemons[0].pid}) delivers it now (svc webhook deliveries shows the result).`;
  return 'Webhook event queued; no daemon is running, so it waits in the outbox and is delivered when svc serve starts.';
}

/**
 * A receiver on a loopback or private address is accepted here because this command runs with
 * webhooks.allowPrivateNetworks (or allowedHosts); the daemon delivers to it only if it runs with
 * the setting too, and reads its settings when it starts. Say so, naming the running
 * daemon when it is known (its record in the state directory) to refuse the receiver.
 */
async function daemonMayRefuse(app: App, url: URL): Promise<string | null> {
  const strict = { ...app.config.webhooks, allowPrivateNetworks: false, allowedHosts: [] };
  const needsSetting = await Promise.resolve()
    .then(() => checkTargetResolves(parseTargetUrl(url.href, strict), strict))
    .then(
      () => false,
      (err) => isAppError(err) && err.code === 'webhook_target_refused',
    );
  if (!needsSetting) return null;
  const daemons = daemonsServing(app.config);
  const how = 'webhooks.allowPrivateNetworks: true (or the host in webhooks.allowedHosts) in the config file it reads, or SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS=true in its environment';
  if (daemons.length === 0) return `note: ${url.hostname} is a loopback or private-network address: the daemon delivers there only if it runs with ${how}. It reads its settings when it starts: restart it after changing them.`;
  const refusing = daemons.filter((daemon) => !privateAllowed({ ...app.config.webhooks, ...daemon.webhooks }, url.hostname));
  if (refusing.length === 0) return null;
  return refusing
    .map((daemon) => `warning: the running daemon (pid ${daemon.pid}) does not allow loopback or private-network receivers: it will refuse to deliver to ${url.hostname}. Set ${how}, then restart it (it reads its settings when it starts).`)
    .join('\n');
}
