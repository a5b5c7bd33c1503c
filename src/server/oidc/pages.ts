import fs from 'node:fs'
import path from 'node:path'
import type { ErrorOut, KoaContextWithOIDC } from 'oidc-provider'
import { escapeHtml } from '~server/escape-html'

/**
 * The pages the protocol engine itself answers with (decision 0403): errors that cannot go back to
 * an app (an unknown application, a redirect URI that does not match), the sign-out confirmation
 * of RP-initiated logout, and its "signed out" page. Each is the web app's own page, in the
 * product's look and the reader's language: the app's index.html with what happened in <meta>
 * tags, which the web app's `/oidc/*` screen reads. Nothing redirects anywhere.
 */
export type WebPage = (meta: Record<string, string>) => string | null

export function webPageWithMeta(webDir: string | undefined, appName: string): WebPage | undefined {
  if (!webDir) return undefined
  const file = path.join(webDir, 'index.html')
  if (!fs.existsSync(file)) return undefined
  const html = fs.readFileSync(file, 'utf8').replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(appName)}</title>`)
  return (meta) => {
    const tags = Object.entries(meta)
      .map(([name, content]) => `<meta name="${escapeHtml(name)}" content="${escapeHtml(content)}" />`)
      .join('\n    ')
    return html.replace('</head>', `    <meta name="application-name" content="${escapeHtml(appName)}" />\n    ${tags}\n  </head>`)
  }
}

export function renderProtocolError(ctx: KoaContextWithOIDC, out: ErrorOut, webPage: WebPage | undefined): void {
  sendPage(ctx, ctx.status >= 400 ? ctx.status : 400, webPage, {
    'oidc-error': String(out.error ?? 'server_error'),
    'oidc-error-description': String(out.error_description ?? ''),
  })
}

export function sendPage(ctx: KoaContextWithOIDC, status: number, webPage: WebPage | undefined, meta: Record<string, string>): void {
  const page = webPage?.(meta)
  ctx.status = status
  ctx.type = 'html'
  ctx.set('Cache-Control', 'no-store')
  ctx.body = page ?? fallbackPage(meta)
}

/** Without the built web app (development with Vite, tests): the same facts as a bare page. */
function fallbackPage(meta: Record<string, string>): string {
  const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
  const tags = Object.entries(meta)
    .map(([name, content]) => `<meta name="${escape(name)}" content="${escape(content)}">`)
    .join('')
  const form = meta['oidc-logout-action']
    ? `<form method="post" action="${escape(meta['oidc-logout-action'])}"><input type="hidden" name="xsrf" value="${escape(meta['oidc-logout-xsrf'] ?? '')}"><button name="logout" value="yes">Sign out</button></form>`
    : ''
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">${tags}<title>Accounts</title></head><body><main>${escape(meta['oidc-error'] ?? meta['oidc-signed-out'] ?? '')}${form}</main></body></html>`
}
