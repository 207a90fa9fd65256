import type { Context } from 'koa';
import { type SafeHtml, html, raw } from './html.js';

/**
 * Server-rendered HTML: one layout, inline CSS, no scripts, no external assets. Pages are built
 * with the escaping `html` tag (html.ts): every value that came from outside is text.
 */
const CSS = `
:root{--bg:#f4f5f9;--card:#fff;--ink:#15171c;--muted:#5b6170;--line:#e3e5ec;--brand:#3b5bdb;--brand-ink:#fff;--danger:#c92a2a;--ok:#2b8a3e;--focus:#91a7ff}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;min-height:100vh;background:var(--bg);color:var(--ink);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;display:flex;flex-direction:column;align-items:center}
header.top{width:100%;max-width:960px;padding:20px 20px 0;display:flex;align-items:center;justify-content:space-between;gap:12px}
.brand{display:flex;align-items:center;gap:10px;font-weight:700;font-size:18px;color:var(--ink);text-decoration:none;letter-spacing:-.01em}
.logo{width:32px;height:32px;border-radius:9px;background:linear-gradient(135deg,#4c6ef5,#7048e8);display:grid;place-items:center;color:#fff;font-size:15px;font-weight:800}
.who{color:var(--muted);font-size:14px;display:flex;align-items:center;gap:10px;flex-wrap:wrap;justify-content:flex-end}
main{width:100%;max-width:460px;padding:28px 16px 48px}
main.wide{max-width:860px}
.card{background:var(--card);border:1px solid var(--line);border-radius:16px;box-shadow:0 1px 2px rgba(20,23,28,.04),0 8px 24px rgba(20,23,28,.06);padding:28px}
h1{font-size:24px;line-height:1.25;margin:0 0 6px;letter-spacing:-.02em}
h2{font-size:15px;margin:22px 0 10px;color:var(--muted);font-weight:600;text-transform:uppercase;letter-spacing:.04em}
p{margin:0 0 12px}
.sub{color:var(--muted);margin-bottom:20px}
label.field{display:block;font-weight:600;font-size:14px;margin:16px 0 6px}
input[type=email],input[type=password]{width:100%;font:inherit;padding:11px 12px;border:1px solid #cfd3dd;border-radius:10px;background:#fff;color:var(--ink)}
input:focus-visible,button:focus-visible,a:focus-visible,.choice input:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.btn{display:inline-flex;align-items:center;justify-content:center;font:inherit;font-weight:600;border-radius:10px;padding:11px 18px;border:1px solid transparent;cursor:pointer;min-height:44px;text-decoration:none}
.btn.primary{background:var(--brand);color:var(--brand-ink)}
.btn.primary:hover{background:#364fc7}
.btn.secondary{background:#fff;color:var(--ink);border-color:#cfd3dd}
.btn.secondary:hover{background:#f1f3f7}
.btn.danger{background:#fff;color:var(--danger);border-color:#f1b0b0}
.btn.link{background:none;border:none;color:var(--muted);padding:6px 8px;min-height:auto;font-weight:500;text-decoration:underline}
.btn.block{width:100%;margin-top:22px}
.actions{display:flex;gap:12px;margin-top:24px}
.actions .btn{flex:1}
.alert{border-radius:10px;padding:11px 14px;margin:0 0 16px;font-size:15px}
.alert.error{background:#fff0f0;color:#a61e1e;border:1px solid #ffc9c9}
.alert.ok{background:#ebfbee;color:#1e6b2f;border:1px solid #b2f2bb}
.app{display:flex;gap:14px;align-items:center;margin-bottom:18px}
.app .icon{flex:none;width:48px;height:48px;border-radius:12px;background:#edf2ff;color:var(--brand);display:grid;place-items:center;font-weight:800;font-size:20px}
.host{font-size:14px;color:var(--muted);overflow-wrap:anywhere}
.choice{display:flex;gap:12px;align-items:flex-start;padding:12px 14px;border:1px solid var(--line);border-radius:12px;margin-bottom:10px;cursor:pointer}
.choice:hover{border-color:#bac8ff}
.choice input{margin-top:4px;width:18px;height:18px;accent-color:var(--brand);flex:none}
.choice strong{display:block}
.choice span{color:var(--muted);font-size:14px}
.note{font-size:13px;color:var(--muted);margin-top:18px}
fieldset{border:0;padding:0;margin:0}
legend{padding:0}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:12px 10px;border-bottom:1px solid var(--line);vertical-align:top;font-size:15px}
th{font-size:13px;color:var(--muted);font-weight:600;text-transform:uppercase;letter-spacing:.04em}
.pill{display:inline-block;background:#edf2ff;color:#364fc7;border-radius:999px;padding:2px 10px;font-size:13px;margin:0 4px 4px 0}
.status-expired{color:#a61e1e;font-size:13px;font-weight:600}
.empty{text-align:center;color:var(--muted);padding:28px 8px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
footer{color:var(--muted);font-size:13px;padding:0 16px 28px;text-align:center}
@media (max-width:640px){
 .card{padding:22px 18px;border-radius:14px}
 main{padding-top:18px}
 table,thead,tbody,tr,td{display:block}
 thead{display:none}
 tr{border:1px solid var(--line);border-radius:12px;margin-bottom:12px;padding:6px 4px}
 td{border:0;padding:6px 10px}
 td[data-label]::before{content:attr(data-label);display:block;font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
}
`;

export interface LayoutOptions {
  title: string;
  body: SafeHtml;
  /** Signed-in header: email and the sign-out form. */
  user?: { email: string; csrf: string };
  wide?: boolean;
}

export function layout(o: LayoutOptions): SafeHtml {
  const who =
    o.user &&
    html`<div class="who"><span>${o.user.email}</span><a class="btn link" href="/connections">Connections</a><form method="post" action="/logout"><input type="hidden" name="csrf" value="${o.user.csrf}"><button class="btn link" type="submit">Sign out</button></form></div>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${o.title} · svc</title>
<style>${raw(CSS)}</style>
</head>
<body>
<header class="top"><a class="brand" href="/connections"><span class="logo" aria-hidden="true">S</span>svc</a>${who}</header>
<main class="${o.wide ? 'wide' : ''}">${o.body}</main>
<footer>svc · SEO content for your site and your agents</footer>
</body>
</html>`;
}

export function errorPage(title: string, message: string): SafeHtml {
  return layout({ title, body: html`<div class="card"><h1>${title}</h1><p class="sub">${message}</p><a class="btn secondary" href="/connections">Go to your connections</a></div>` });
}

/** Answer with a page (the only way pages reach ctx.body, so a SafeHtml is never sent as JSON). */
export function sendPage(ctx: Context, page: SafeHtml, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = page.value;
}
