import { randomBase62 } from '../lib/crypto.js';
import type { Connector } from '../connectors/store.js';

/** `whsec_` + 32 or more base62 characters (decisions.md), 200 in all at most (the column's size). */
export const SECRET_PATTERN = /^whsec_[0-9A-Za-z]{32,194}$/;

export const generateSecret = (): string => `whsec_${randomBase62(40)}`;

/** Secrets that sign right now, newest first: the current one and, during a rotation's grace, the previous. */
export function activeSecrets(connector: Connector, now: Date): string[] {
  const out = connector.signingSecret ? [connector.signingSecret] : [];
  if (connector.previousSecret && connector.previousSecretUntil && Date.parse(connector.previousSecretUntil) > now.getTime()) out.push(connector.previousSecret);
  return out;
}

/** `whsec_AbCd…wxyz`: enough to recognise a secret, never enough to use it. */
export const maskSecret = (secret: string | null): string | null => (secret ? `${secret.slice(0, 10)}…${secret.slice(-4)}` : null);
