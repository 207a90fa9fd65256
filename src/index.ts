// Public package entry: what blog templates, receivers and scripts import from "svc".
export { AppError } from './errors.js';
export { verifyWebhookSignature } from './webhooks/sign.js';
