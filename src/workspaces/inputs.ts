import { z } from 'zod';
import { parseDateTime } from '../lib/datetime.js';

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
});
export type WorkspaceUpdateInput = z.input<typeof workspaceUpdateInput>;
