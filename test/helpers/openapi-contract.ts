import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { contentApiDocument } from '../../src/http/openapi.js';

/**
 * Checks a content API response against the OpenAPI document (GET /api/v1/content/openapi.json):
 * its status must be documented for the operation, its JSON body must match the documented schema
 * (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses), and the documented headers of a 200 must be
 * there. Called for every response the content API tests receive (test/content-api/fixture.ts).
 */

const doc = contentApiDocument() as any;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
const validators = new Map<string, ValidateFunction>();
const PREFIX = '/api/v1/content';

const operations: Array<{ pattern: RegExp; template: string }> = Object.keys(doc.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
}));

function validator(key: string, schema: object): ValidateFunction {
  let v = validators.get(key);
  if (!v) {
    // The components travel with each schema, so its #/components/... references resolve.
    v = ajv.compile({ ...schema, components: doc.components });
    validators.set(key, v);
  }
  return v;
}

export class ContractViolation extends Error {}

/** Throws ContractViolation when the response does not match the document. `res` is consumed: pass a clone. */
export async function checkContentResponse(method: string, url: string, res: Response): Promise<void> {
  const m = method.toUpperCase();
  if (m === 'OPTIONS') return; // CORS preflights: answered by the CORS layer, not API operations
  const path = new URL(url).pathname;
  if (!path.startsWith(PREFIX)) return;
  const op = operations.find((o) => o.pattern.test(path.replace(/\/+/g, '/')));
  const where = `${m} ${path} ${res.status}`;
  const responses = op ? doc.paths[op.template].get.responses : null;
  const documented = responses?.[String(res.status)];
  if (responses && !documented) throw new ContractViolation(`${where}: status not documented for ${op!.template} (documented: ${Object.keys(responses).join(', ')})`);
  const text = await res.text();
  if (res.status === 304 || m === 'HEAD') {
    if (text !== '') throw new ContractViolation(`${where}: a body where none is allowed`);
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ContractViolation(`${where}: not JSON: ${text.slice(0, 200)}`);
  }
  // A path no operation has (an unknown route) still answers the documented error shape.
  const schema = documented?.content?.['application/json']?.schema ?? (res.status >= 400 ? { $ref: '#/components/schemas/Error' } : null);
  if (!schema) throw new ContractViolation(`${where}: no schema documented`);
  const v = validator(`${op?.template ?? 'unknown'} ${res.status}`, schema);
  if (!v(body)) throw new ContractViolation(`${where}: body does not match the document: ${ajv.errorsText(v.errors)} in ${text.slice(0, 300)}`);
  for (const name of Object.keys(documented?.headers ?? {})) {
    if (res.status === 200 && ['Cache-Control', 'Vary', 'ETag'].includes(name) && !res.headers.has(name) && !(name !== 'Cache-Control' && res.headers.get('cache-control') === 'no-store')) {
      throw new ContractViolation(`${where}: documented header ${name} missing`);
    }
  }
  if (res.status === 429 && !res.headers.has('retry-after')) throw new ContractViolation(`${where}: 429 without Retry-After`);
}

/** A fetch that checks every content API response against the document (for the typed client's tests). */
export const checkedFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  await checkContentResponse(init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET'), url, res.clone());
  return res;
};

export { doc as contentApiDoc };
