/**
 * The one list of commands that delete or replace data. Each of them says what it will remove
 * and asks on a terminal (ask.ts `confirm`), or needs `--yes` without one. `when` names the
 * option that makes a run destructive, for commands that are harmless without it.
 * test/cli/destructive.test.ts walks the command table and holds every command to this list.
 */
export const DESTRUCTIVE_COMMANDS: Readonly<Record<string, { when?: string }>> = {
  restore: {},
  'db copy': { when: '--force' },
  migrate: { when: '--rollback' },
  'users remove': {},
  'members remove': {},
  'articles delete': {},
  'keywords remove': {},
  'images remove': {},
  'blog-key regenerate': {},
  'blog-key revoke': {},
  'webhook remove': {},
  'webhook rotate-secret': {},
  'api-keys revoke': {},
  'connections revoke': {},
};

/**
 * Commands whose name or options sound destructive but lose nothing that one command cannot
 * give back, with the reason.
 */
export const NOT_DESTRUCTIVE: Readonly<Record<string, string>> = {
  'articles preview': '--revoke ends preview links; a new one is one command away and no stored data goes',
  'articles unpublish': 'the article and its content stay; svc articles publish puts it back (--force-notify only tells the receiver again)',
  'users passwd': '--revoke-connections is part of the password change the operator asks for; agents connect again with OAuth',
};

/** The `--yes` option every destructive command takes. */
export const YES_OPTION = ['-y, --yes', 'do not ask for confirmation (needed without a terminal)'] as const;
