import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { toAppError } from '../../src/errors.js';
import { createArticle } from '../../src/publishing/create.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { createWorkspace, getWorkspace, updateWorkspace } from '../../src/workspaces/service.js';
import { createUser } from '../../src/workspaces/users.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';

// Issue 11: every text input fits its column on SQLite and PostgreSQL (varchar(n) counts
// characters there, and a character outside the BMP is two UTF-16 units in JavaScript), and one
// character more is a 400 naming the field, never a 500 from the database.
const wide = (n: number) => '𠮷'.repeat(n); // 4 bytes in UTF-8, 2 UTF-16 units, 1 character
const refusal = async (promise: Promise<unknown>) => {
  const err = await promise.then(
    () => undefined,
    (e) => e,
  );
  expect(err, 'expected a refusal').toBeDefined();
  return { code: err.code, status: err.status, message: err.message };
};

describe('input limits match the columns on both databases', () => {
  it('articles: every text field at its limit is stored and published; one more character is refused by name', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    await generateBlogKey(d.app, ws);
    const full = {
      title: wide(500),
      slug: `${'가'.repeat(199)}1`,
      metaTitle: wide(500),
      metaDescription: wide(2000),
      focusKeyword: wide(200),
      secondaryKeywords: Array.from({ length: 50 }, (_, i) => `${wide(196)}${String(i).padStart(4, '0')}`),
      imageAlt: wide(500),
      author: wide(200),
      featuredImageUrl: `https://example.com/${'a'.repeat(1980)}`,
      bodyMarkdown: '## A\n\ntext',
    };
    const { article } = await createArticle(d.app, ws, full);
    expect(article).toMatchObject({ title: full.title, slug: full.slug, author: full.author });
    await publishArticle(d.app, await getWorkspace(d.app, ws.id), article.id); // tags: titles of 200 characters
    const tooLong: Array<[string, unknown, string]> = [
      ['title', wide(501), 'title: must be at most 500 characters'],
      ['slug', '가'.repeat(201), 'slug: must be at most 200 characters'],
      ['metaTitle', wide(501), 'metaTitle: must be at most 500 characters'],
      ['focusKeyword', wide(201), 'focusKeyword: must be at most 200 characters'],
      ['secondaryKeywords', ['ok', wide(201)], 'secondaryKeywords.1: must be at most 200 characters'],
      ['secondaryKeywords', Array.from({ length: 51 }, (_, i) => `k${i}`), 'secondaryKeywords: may have at most 50 items'],
      ['imageAlt', wide(501), 'imageAlt: must be at most 500 characters'],
      ['author', wide(201), 'author: must be at most 200 characters'],
      ['featuredImageUrl', `https://example.com/${'a'.repeat(1981)}`, 'featuredImageUrl: must be at most 2000 characters'],
    ];
    for (const [field, value, message] of tooLong) {
      expect(await refusal(createArticle(d.app, ws, { title: 'x', bodyMarkdown: '', [field]: value })), field).toEqual({ code: 'invalid_input', status: 400, message: `Invalid article: ${message}` });
    }
  });

  it('workspaces, users, API keys and webhooks: at the limit stored, over it refused by name', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await createWorkspace(d.app, { name: wide(200), websiteUrl: `https://example.com/${'a'.repeat(480)}`, siteUrl: `https://example.com/${'b'.repeat(480)}`, contentPath: `/${'c'.repeat(199)}`, plan: wide(60) });
    expect(ws.name).toBe(wide(200));
    await updateWorkspace(d.app, ws.id, { allowanceArticles: 2_147_483_647 });
    const tooLong: Array<[Record<string, unknown>, string]> = [
      [{ name: wide(201) }, 'name: must be at most 200 characters'],
      [{ websiteUrl: `https://example.com/${'a'.repeat(481)}` }, 'websiteUrl: must be at most 500 characters'],
      [{ siteUrl: `https://example.com/${'a'.repeat(481)}` }, 'siteUrl: must be at most 500 characters'],
      [{ contentPath: `/${'c'.repeat(200)}` }, 'contentPath: must be at most 200 characters'],
      [{ plan: wide(61) }, 'plan: must be at most 60 characters'],
      [{ allowanceArticles: 2_147_483_648 }, 'allowanceArticles: allowances are at most 2147483647'],
    ];
    for (const [input, message] of tooLong) {
      expect(await refusal(updateWorkspace(d.app, ws.id, input))).toEqual({ code: 'invalid_input', status: 400, message: `Invalid workspace settings: ${message}` });
    }

    const local = 'u'.repeat(64);
    const email = `${local}@${'d'.repeat(240)}.example.com`.slice(0, 316) + '.com';
    expect(email).toHaveLength(320);
    await createUser(d.app, { email, password: 'long enough password', displayName: wide(200) });
    expect(await refusal(createUser(d.app, { email: `a${email}`, password: 'long enough password' }))).toEqual({
      code: 'invalid_input',
      status: 400,
      message: 'Invalid user: email: an email address has at most 320 characters',
    });

    const admin = await seedUser(d.app, ws, 'admin');
    await createApiKey(d.app, { workspaceId: ws.id, userId: admin.id, name: 'é'.repeat(100), scopes: ['read'] });
    expect(await refusal(createApiKey(d.app, { workspaceId: ws.id, userId: admin.id, name: 'é'.repeat(101), scopes: ['read'] }))).toMatchObject({ status: 400, message: 'Invalid API key settings: name: name is at most 100 characters' });

    const url = `https://hooks.example.com/${'h'.repeat(1974)}`;
    expect(url).toHaveLength(2000);
    await setWebhook(d.app, ws, { url, secret: `whsec_${'s'.repeat(194)}` });
    expect(await refusal(setWebhook(d.app, ws, { url: `${url}h` }))).toEqual({ code: 'invalid_url', status: 400, message: 'Webhook URLs may be at most 2000 characters long (once percent-encoded)' });
    // A URL of 300 characters that percent-encodes to 2,700 is measured as stored.
    expect(await refusal(setWebhook(d.app, ws, { url: `https://hooks.example.com/${'京'.repeat(300)}` }))).toMatchObject({ status: 400, code: 'invalid_url' });
    expect(await refusal(setWebhook(d.app, ws, { url, secret: `whsec_${'s'.repeat(195)}` }))).toMatchObject({ status: 400, code: 'invalid_secret' });
  });

  it('a value the database still refuses is a 400 for every surface, never a 500', () => {
    // The shapes node-postgres gives these errors; inputs are checked first, this is the safety net.
    expect(toAppError(Object.assign(new Error('value too long for type character varying(200)'), { code: '22001' }))).toMatchObject({
      status: 400,
      code: 'invalid_input',
      message: 'A text value is too long: this field holds at most 200 characters',
    });
    expect(toAppError(Object.assign(new Error('value "2147483648" is out of range for type integer'), { code: '22003' }))).toMatchObject({ status: 400, message: 'A number is out of range for its field' });
    expect(toAppError(Object.assign(new Error('invalid input syntax for type integer: "x"'), { code: '22P02' }))).toMatchObject({ status: 400, message: 'A value is not in the form its field needs' });
    expect(toAppError(Object.assign(new Error('index row size 3000 exceeds btree version 4 maximum 2704'), { code: '54000' }))).toMatchObject({ status: 400, message: 'A value is too large to be stored' });
  });
});
