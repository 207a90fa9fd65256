import type { Role } from './roles.js';
import type { BillingStatus } from './inputs.js';

export interface Workspace {
  id: string;
  name: string;
  websiteUrl: string;
  siteUrl: string | null;
  contentPath: string;
  plan: string;
  billingStatus: BillingStatus;
  graceUntil: string | null;
  autoPublish: boolean;
  allowances: { articles: number; audits: number; keywords: number };
  /** Default location and language of keyword lookups (null: the fallback of docs/keywords.md). */
  keywordLocation: string | null;
  keywordLanguage: string | null;
  contentVersion: number;
  createdAt: string;
  updatedAt: string;
}

export interface User {
  id: string;
  email: string;
  displayName: string;
  createdAt: string;
}

export interface Membership {
  workspaceId: string;
  userId: string;
  email: string;
  displayName: string;
  role: Role;
  createdAt: string;
}
