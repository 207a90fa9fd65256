/** viewer reads; editor reads, writes and publishes; admin also manages keys, connectors and members. */
export const ROLES = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (v: string): v is Role => (ROLES as readonly string[]).includes(v);

export const roleAtLeast = (role: Role, min: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(min);

/** The spec's refusal once the acting user left the workspace (Agent connection refusals). */
export const NOT_A_MEMBER = 'You are no longer a member of this workspace';

/** The one refusal for a role below what an action needs, naming both roles (CLI, HTTP, MCP). */
export const roleRefusal = (min: Role, role: Role): string => `This needs the ${min} role; you are ${withArticle(role)} in this workspace`;

/** `an admin`, `an editor`, `a viewer`. */
export const withArticle = (role: Role): string => `${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role}`;
