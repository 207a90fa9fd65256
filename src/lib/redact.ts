/**
 * The one redaction rule for the secrets svc issues, wherever text leaves for a log: every
 * `svc_<kind>_` token (blog keys, API keys, OAuth access and refresh tokens, authorization
 * codes, client secrets, preview tokens, browser sessions, consent requests) and `whsec_`
 * signing secrets. Their random part is 32
 * or more base62 characters; 12 are enough to recognise one (a pasted fragment included) while
 * svc's own names (`svc_content_versions`, metric names) never match.
 */
const ISSUED_SECRET = /(svc_[a-z]+_|whsec_)[0-9A-Za-z]{12,}/g;
/** The cheap first look (about 0.2 us on a request-log line, two substring searches cost twice that). */
const EITHER_PREFIX = /svc_|whsec_/;

export const REDACTED = '[redacted]';

/** `text` with every issued secret's random part replaced (`svc_blog_[redacted]`: the kind stays visible). */
export function redactSecrets(text: string): string {
  if (!EITHER_PREFIX.test(text)) return text; // most lines
  return text.replace(ISSUED_SECRET, `$1${REDACTED}`);
}

/** Whether `text` holds an issued secret. */
export function holdsSecret(text: string): boolean {
  return redactSecrets(text) !== text;
}

// Query parameters that carry credentials, compared after decoding (`%6Bey` is `key`).
const SECRET_PARAMS = new Set(['key', 'api_key', 'apikey', 'token', 'access_token', 'refresh_token', 'id_token', 'code', 'code_verifier', 'client_secret', 'password', 'secret', 'preview']);

/**
 * Remove credentials from a request URL before it is logged. The server reads a parameter after
 * percent-decoding it, so the check is made on the decoded name (`?%6Bey=svc_blog_...` is the
 * key parameter), and any part that decodes to an issued secret is removed too.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q === -1 ? url : url.slice(0, q))
    .split('/')
    .map((segment) => (holdsSecret(decoded(segment)) ? REDACTED : segment))
    .join('/');
  if (q === -1) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq === -1 ? part : part.slice(0, eq);
      const plainName = decoded(name).trim().toLowerCase().replace(/\[[^\]]*\]$/, '');
      if (holdsSecret(decoded(name))) return REDACTED;
      if (SECRET_PARAMS.has(plainName) || holdsSecret(decoded(part))) return eq === -1 ? part : `${name}=${REDACTED}`;
      return part;
    })
    .join('&');
  return `${path}?${query}`;
}

/** Percent-decoded (and `+` as a space), repeatedly, so double encoding hides nothing. */
function decoded(text: string): string {
  let out = text.replace(/\+/g, ' ');
  for (let i = 0; i < 3 && out.includes('%'); i++) {
    try {
      out = decodeURIComponent(out);
    } catch {
      break;
    }
  }
  return out;
}
