import type { FastifyPluginAsync } from 'fastify'
import type { AppContext } from '~server/context'
import { escapeHtml as escape } from '~server/escape-html'
import { readOutbox } from '~server/mail/transport'

/**
 * /dev/outbox: the mail written to the outbox, with clickable links, so someone running the app
 * on a laptop can finish registration. Registered only outside production, in outbox mode, and
 * while the server listens on a loopback address (see main.ts).
 */
export function outboxRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.get('/dev/outbox', async (_request, reply) => {
      const messages = readOutbox(ctx.config.dataDir).slice(0, 100)
      const items = messages
        .map(
          (m) => `<article>
  <h2>${escape(m.subject)}</h2>
  <p class="meta">To ${escape(m.to)} &middot; ${escape(m.date)}</p>
  <ul>${m.links.map((link) => `<li><a href="${escape(link)}">${escape(link)}</a></li>`).join('')}</ul>
  <details><summary>Text</summary><pre>${escape(m.text)}</pre></details>
</article>`,
        )
        .join('\n')
      const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Outbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#111827}
article{border:1px solid #d1d5db;border-radius:8px;padding:1rem;margin:1rem 0}h2{font-size:1.1rem;margin:0}
.meta{color:#4b5563;font-size:.9rem}a{color:#1d4ed8;word-break:break-all}pre{white-space:pre-wrap}</style>
</head><body>
<h1>Outbox</h1>
<p>Mail the app would have sent. Set SMTP_URL to send real mail instead.</p>
${items || '<p>No messages yet.</p>'}
</body></html>`
      return reply.header('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(html)
    })
  }
}
