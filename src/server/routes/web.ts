import fs from 'node:fs'
import path from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyPluginAsync } from 'fastify'
import { escapeHtml } from '~server/escape-html'

/**
 * The built web app. Hashed assets are cached for a year; every other page address gets
 * index.html (the app routes in the browser), which is never cached so a deploy shows at once.
 * Settings the app needs at run time (the product's name, the support address) go into that page as <meta> tags, so
 * they come from the server's configuration, not from the build.
 */
export interface PageSettings {
  /** The product's name (APP_NAME): the page's title and <meta name="application-name">. */
  appName?: string
  supportEmail?: string | undefined
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A file of the web app's build: the metrics count every one under one route (decision 0022). */
    webAppFile?: true
  }
}

export function webRoutes(webDir: string, settings: PageSettings = {}): FastifyPluginAsync {
  return async (app) => {
    const indexHtml = withSettings(fs.readFileSync(path.join(webDir, 'index.html'), 'utf8'), settings)
    // @fastify/static registers one route per file (`wildcard: false`): each is marked as one.
    app.addHook('onRoute', (route) => {
      if (route.url !== '/*') route.config = { ...route.config, webAppFile: true }
    })
    await app.register(fastifyStatic, {
      root: webDir,
      index: false,
      wildcard: false,
      setHeaders(reply, filePath) {
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`)
        void reply.header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      },
    })
    app.get('/*', async (request, reply) => {
      if (request.url.startsWith('/api/') || request.url === '/api') {
        return reply.callNotFound()
      }
      const file = request.url.split('?')[0] ?? '/'
      // A missing asset is a 404, not the app shell: browsers would otherwise parse HTML as code.
      if (/\.[a-z0-9]+$/i.test(file) && file !== '/index.html') return reply.callNotFound()
      return reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(indexHtml)
    })
  }
}

function withSettings(html: string, settings: PageSettings): string {
  const metas: string[] = []
  let page = html
  if (settings.appName) {
    const name = escapeHtml(settings.appName)
    metas.push(`<meta name="application-name" content="${name}" />`)
    page = page.replace(/<title>[^<]*<\/title>/, `<title>${name}</title>`).replace(/<noscript>Accounts /, `<noscript>${name} `)
  }
  if (settings.supportEmail) metas.push(`<meta name="support-email" content="${escapeHtml(settings.supportEmail)}" />`)
  return metas.reduce((result, meta) => result.replace('</head>', `  ${meta}\n  </head>`), page)
}
