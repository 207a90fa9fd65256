/** Agent permissions (spec: Agent permissions). Labels are the consent screen's. */
export const SCOPES = ['read', 'content', 'publish'] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_LABELS: Record<Scope, string> = {
  read: 'Read your SEO data',
  content: 'Research and write content',
  publish: 'Publish to your website',
};

/** publish is off by default on the consent screen. */
export const DEFAULT_CONSENT_SCOPES: Scope[] = ['read', 'content'];

export const isScope = (v: string): v is Scope => (SCOPES as readonly string[]).includes(v);

/** The exact refusal text of the spec for a tool whose scope was not granted. */
export const scopeRefusal = (scope: Scope): string => `This connection was not granted the \`${scope}\` scope`;
