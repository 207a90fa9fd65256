import { z } from 'zod';

export const BILLING_STATUSES = ['active', 'past_due', 'lapsed'] as const;
export type BillingStatus = (typeof BILLING_STATUSES)[number];

const httpUrl = (field: string) =>
  z
    .string()
    .trim()
    .refine((v) => /^https?:\/\/[^\s/]+/i.test(v) && URL.canParse(v), { message: `${field} must be an http(s) URL, e.g. https://example.com` });

const contentPath = z
  .string()
  .trim()
  .regex(/^\/?[A-Za-z0-9._~\-/]*$/, 'content path may hold only letters, digits, - _ . ~ and /')
  .transform((v) => ('/' + v.replace(/^\/+|\/+$/g, '')).replace(/^\/$/, ''));

const allowance = z.coerce.number().int().min(0, 'allowances are whole numbers >= 0');

/**
 * Where keyword data is for: a provider location code (2840 = United States) or its full name
 * ("United States", "London,England,United Kingdom"). Codes are sent as codes, names as names.
 */
export const keywordLocation = z
  .string()
  .trim()
  .min(1, 'location is required, e.g. 2840 (United States) or "United Kingdom"')
  .max(100, 'location is at most 100 characters');

/** The language of keyword data: a code (en, pt, zh-TW) or a name (English). */
export const keywordLanguage = z
  .string()
  .trim()
  .min(1, 'language is required, e.g. en')
  .max(50, 'language is at most 50 characters');

export const workspaceCreateInput = z.object({
  name: z.string().trim().min(1, 'name is required').max(200),
  websiteUrl: httpUrl('website'),
  siteUrl: httpUrl('site URL').nullish(),
  contentPath: contentPath.optional(),
  plan: z.string().trim().min(1).max(60).optional(),
});
export type WorkspaceCreateInput = z.input<typeof workspaceCreateInput>;

export const workspaceUpdateInput = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  websiteUrl: httpUrl('website').optional(),
  siteUrl: httpUrl('site URL').nullable().optional(),
  contentPath: contentPath.optional(),
  plan: z.string().trim().min(1).max(60).optional(),
  billingStatus: z.enum(BILLING_STATUSES, { errorMap: () => ({ message: 'billing status must be active, past_due or lapsed' }) }).optional(),
  graceUntil: z
    .string()
    .refine((v) => !Number.isNaN(Date.parse(v)), 'grace end must be an ISO 8601 date, e.g. 2026-12-01T00:00:00Z')
    .transform((v) => new Date(v).toISOString())
    .nullable()
    .optional(),
  autoPublish: z.boolean().optional(),
  allowanceArticles: allowance.optional(),
  allowanceAudits: allowance.optional(),
  allowanceKeywords: allowance.optional(),
  keywordLocation: keywordLocation.nullable().optional(),
  keywordLanguage: keywordLanguage.nullable().optional(),
});
export type WorkspaceUpdateInput = z.input<typeof workspaceUpdateInput>;
