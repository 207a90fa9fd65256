import { z } from 'zod';
import { parseDateTime } from '../lib/datetime.js';
import { atMostChars, someText } from '../lib/validate.js';

export const BILLING_STATUSES = ['active', 'past_due', 'lapsed'] as const;
export type BillingStatus = (typeof BILLING_STATUSES)[number];

// Limits are the columns' (migrations/2026-11-22-0300), in characters as PostgreSQL counts them.
const text = (max: number) => z.string().trim().superRefine(atMostChars(max));

const httpUrl = (field: string) =>
  text(500)
    .refine((v) => /^https?:\/\/[^\s/]+/i.test(v) && URL.canParse(v), { message: `${field} must be an http(s) URL, e.g. https://example.com` });

const contentPath = z
  .string()
  .trim()
  .superRefine(atMostChars(200))
  .refine((v) => /^\/?[A-Za-z0-9._~\-/]*$/.test(v), 'content path may hold only letters, digits, - _ . ~ and /')
  .transform((v) => ('/' + v.replace(/^\/+|\/+$/g, '')).replace(/^\/$/, ''));

// A PostgreSQL integer column holds up to 2^31 - 1.
const allowance = z.coerce.number().int().min(0, 'allowances are whole numbers >= 0').max(2_147_483_647, 'allowances are at most 2147483647');

/**
 * Where keyword data is for: a provider location code (2840 = United States) or its full name
 * ("United States", "London,England,United Kingdom"). Codes are sent as codes, names as names.
 */
export const keywordLocation = someText(100, { empty: 'location is required, e.g. 2840 (United States) or "United Kingdom"', tooLong: 'location is at most 100 characters' });

/** The language of keyword data: a code (en, pt, zh-TW) or a name (English). */
export const keywordLanguage = someText(50, { empty: 'language is required, e.g. en', tooLong: 'language is at most 50 characters' });

export const workspaceCreateInput = z.object({
  name: text(200).refine((v) => v.length > 0, 'name is required'),
  websiteUrl: httpUrl('website'),
  siteUrl: httpUrl('site URL').nullish(),
  contentPath: contentPath.optional(),
  plan: text(60).refine((v) => v.length > 0, 'may not be empty').optional(),
});
export type WorkspaceCreateInput = z.input<typeof workspaceCreateInput>;

export const workspaceUpdateInput = z.object({
  name: text(200).refine((v) => v.length > 0, 'may not be empty').optional(),
  websiteUrl: httpUrl('website').optional(),
  siteUrl: httpUrl('site URL').nullable().optional(),
  contentPath: contentPath.optional(),
  plan: text(60).refine((v) => v.length > 0, 'may not be empty').optional(),
  billingStatus: z.enum(BILLING_STATUSES, { errorMap: () => ({ message: 'billing status must be active, past_due or lapsed' }) }).optional(),
  // The shared reader (lib/datetime.ts): a time without a zone is refused, not read in the machine's.
  graceUntil: z
    .string()
    .transform((v, ctx) => {
      try {
        return parseDateTime(v, { naive: 'refuse' }).iso;
      } catch (err) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `grace end: ${(err as Error).message}` });
        return z.NEVER;
      }
    })
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
