import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { failures } from '~server/http/envelope'
import { notFound } from '~server/http/errors'

/**
 * The API reference: GET /api/openapi.json (the document, src/server/http/openapi.ts) and
 * GET /api/docs, Swagger UI reading it, served from the product's own files (no CDN). The page
 * runs under the product's strict Content-Security-Policy: its script is a file
 * (reference.js), never inline; Swagger UI needs inline styles and data: images, which the policy
 * already allows for the web app (docs/decisions/0020).
 */
const here = path.dirname(fileURLToPath(import.meta.url))
// Its folder only: loading the package itself would load the whole browser bundle into the server.
const swaggerUi = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))

/** The page's files: name → where it is and what it is. Nothing else is served from the folder. */
const FILES: Record<string, { file: string; type: string }> = {
  'swagger-ui.css': { file: path.join(swaggerUi, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: path.join(swaggerUi, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
  'favicon-32x32.png': { file: path.join(swaggerUi, 'favicon-32x32.png'), type: 'image/png' },
  'reference.css': { file: path.join(here, 'reference.css'), type: 'text/css; charset=utf-8' },
  'reference.js': { file: path.join(here, 'reference.js'), type: 'text/javascript; charset=utf-8' },
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Accounts API reference</title>
  <link rel="icon" type="image/png" href="/api/docs/favicon-32x32.png">
  <link rel="stylesheet" href="/api/docs/swagger-ui.css">
  <link rel="stylesheet" href="/api/docs/reference.css">
</head>
<body>
  <main id="reference"><noscript>The API reference needs JavaScript. The document itself is at <a href="/api/openapi.json">/api/openapi.json</a>.</noscript></main>
  <script src="/api/docs/swagger-ui-bundle.js"></script>
  <script src="/api/docs/reference.js"></script>
</body>
</html>
`

const fileCache = new Map<string, Buffer>()

function readFile(file: string): Buffer {
  let content = fileCache.get(file)
  if (!content) fileCache.set(file, (content = fs.readFileSync(file)))
  return content
}

const html = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } })

export function referenceRoutes(): FastifyPluginAsyncZod {
  return async (app) => {
    let document: string | undefined

    app.get(
      '/openapi.json',
      {
        schema: {
          response: { 200: { description: 'This document', content: { 'application/json': { schema: z.object({ openapi: z.string() }).loose() } } } },
        },
      },
      async (_request, reply) => {
        // Built once, on first request: every route is registered by then.
        document ??= JSON.stringify(app.swagger())
        // Sent as the text it is: a string goes out unserialised.
        return reply.type('application/json; charset=utf-8').send(document as unknown as { openapi: string })
      },
    )

    app.get('/docs', { schema: { response: { 200: html('The reference page') } } }, async (_request, reply) => reply.type('text/html; charset=utf-8').send(PAGE))

    app.get(
      '/docs/:file',
      {
        schema: {
          params: z.object({ file: z.string() }),
          response: {
            200: {
              description: "A file of the reference page (Swagger UI's, or the page's own)",
              content: {
                'text/css': { schema: z.string() },
                'text/javascript': { schema: z.string() },
                'image/png': { schema: z.string() },
              },
            },
            ...failures(404),
          },
        },
      },
      async (request, reply) => {
        const asset = Object.hasOwn(FILES, request.params.file) ? FILES[request.params.file] : undefined
        if (!asset) throw notFound('No such file')
        // Like every answer under /api, not kept in caches (`no-store`): the page is for a developer now and then.
        return reply.type(asset.type).send(readFile(asset.file) as unknown as string)
      },
    )
  }
}
