// Public package entry: what receivers and scripts import from "svc-daemon" (blog sites use svc-content-client).
export { AppError } from './errors.js';
export { verifyWebhookSignature } from './webhooks/sign.js';
