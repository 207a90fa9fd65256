// Public package entry: what blog templates, receivers and scripts import from "svc-daemon".
export { AppError } from './errors.js';
export { verifyWebhookSignature } from './webhooks/sign.js';
export { ContentApiError, createContentClient, type Article, type ArticleIndex, type ContentClient, type ContentClientOptions, type Page, type Sitemap, type TermCount } from './client/index.js';
