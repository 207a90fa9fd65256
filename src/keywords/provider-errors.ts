import { AppError } from '../errors.js';

export type ProviderFailureReason = 'auth' | 'payment' | 'rate_limited' | 'invalid_field' | 'unavailable' | 'timeout' | 'bad_answer';

const CODES: Record<ProviderFailureReason, string> = {
  auth: 'provider_auth_failed',
  payment: 'provider_payment_required',
  rate_limited: 'provider_rate_limited',
  invalid_field: 'provider_invalid_field',
  unavailable: 'provider_unavailable',
  timeout: 'provider_timeout',
  bad_answer: 'provider_bad_answer',
};

/**
 * A provider that failed, in words for a person (the agent sees it as the tool error). 424
 * Failed Dependency: below 500, so every surface shows the message instead of "Internal error".
 */
export function providerFailure(reason: ProviderFailureReason, message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError(CODES[reason], 424, message, { details: { reason, ...details } });
}
