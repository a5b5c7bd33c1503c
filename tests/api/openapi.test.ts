import { Validator } from '@seriousme/openapi-schema-validator'
import { beforeAll, describe, expect, it } from 'vitest'
import { API_ACCESS, type Access } from '~shared/permissions'
import { useTestApp } from '../support/test-app'
import { installResponseContract } from '../support/response-contract'
import { scopeOf } from '~shared/scopes'

/**
 * The API reference: GET /api/openapi.json is a valid OpenAPI 3.1 document
 * of every /api route, and GET /api/docs shows it with the product's own files. That every answer
 * of the API suite matches the document is checked on every request by the shared test app
 * (tests/support/response-contract.ts); the last tests here show that check fails when it should.
 */

interface Operation {
  description?: string
  security?: Record<string, string[]>[]
  parameters?: { in: string; name: string }[]
  requestBody?: { content: Record<string, unknown> }
  responses: Record<string, { content?: Record<string, { schema: object }> }>
}

describe('the OpenAPI document', () => {
  const t = useTestApp()
  let doc: { openapi: string; paths: Record<string, Record<string, Operation>>; components: { securitySchemes: object } }
  beforeAll(async () => {
    const response = await t.request('GET', '/api/openapi.json')
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
    doc = response.json()
  })

  const operation = (key: string) => {
    const [method, path] = key.split(' ') as [string, string]
    return doc.paths[`/api${path.replace(/:(\w+)/g, '{$1}')}`]?.[method.toLowerCase()]
  }

  it('is valid OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0')
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    // The validator does refuse a broken one.
    const broken = structuredClone(doc) as unknown as Record<string, unknown>
    delete broken.info
    expect((await new Validator().validate(broken)).valid).toBe(false)
  })

  // Every /api route is in the permission table, or the server refuses to register it
  // (src/server/http/auth-guard.ts); so every route of the table in the document is every route.
  it('has every route of the permission table, and nothing that is not a route', async () => {
    const keys = Object.keys(API_ACCESS)
    expect(keys.filter((key) => !operation(key))).toEqual([])
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
    expect(documented).toHaveLength(keys.length)
    for (const key of documented) {
      const [method, path] = key.split(' ') as [string, string]
      expect(t.app.hasRoute({ method: method as 'GET', url: path.replace(/\{(\w+)\}/g, ':$1') }), key).toBe(true)
    }
  })

  it('describes requests: path parameters, query and body from the validating schemas', () => {
    expect(operation('GET /admin/users/:id')!.parameters).toEqual([expect.objectContaining({ in: 'path', name: 'id' })])
    const query = operation('GET /admin/users')!.parameters!.map((p) => `${p.in}:${p.name}`)
    expect(query).toEqual(expect.arrayContaining(['query:page', 'query:limit', 'query:search', 'query:role', 'query:status']))
    // An endpoint's deliveries are filtered by status: every status a delivery has, or all.
    const status = operation('GET /admin/webhooks/:id/deliveries')!.parameters!.find((p) => p.in === 'query' && p.name === 'status')
    expect(JSON.stringify(status)).toMatch(/"enum":\["pending","delivered","failed","exhausted","all"\]/)
    const login = operation('POST /auth/login')!.requestBody!.content['application/json'] as {
      schema: { properties: object; required: string[]; additionalProperties: boolean }
    }
    expect(Object.keys(login.schema.properties)).toEqual(['email', 'password'])
    expect(login.schema.additionalProperties).toBe(false)
  })

  it('declares every answer status with the envelope', () => {
    const failure = { $ref: '#/components/schemas/Failure' }
    const login = operation('POST /auth/login')!.responses
    expect(Object.keys(login).sort()).toEqual(['200', '400', '401', '403', '413', '415', '421', '429', '500', '503'])
    for (const status of ['400', '401', '403', '421', '429', '503']) expect(login[status]!.content!['application/json']!.schema).toEqual(failure)
    const me = operation('GET /auth/me')!.responses['200']!.content!['application/json']!.schema as { properties: Record<string, unknown> }
    expect(me.properties.data).toEqual({ $ref: '#/components/schemas/User' })
    expect(Object.keys(operation('DELETE /admin/users/:id')!.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '421',
      '429',
      '500',
      '503',
    ])
    expect(Object.keys(operation('GET /users/pictures/:file')!.responses['200']!.content!)).toEqual(['image/webp'])
  })

  it('says who may call: no security on public calls, the bearer token, the CSRF header on writes, and the scope a service credential needs', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearerAuth', 'csrfToken', 'serviceCredential'])
    for (const [key, access] of Object.entries(API_ACCESS) as [string, Access][]) {
      const person = access === 'public' ? [] : /^(POST|PUT|PATCH|DELETE) /.test(key) ? [{ bearerAuth: [], csrfToken: [] }] : [{ bearerAuth: [] }]
      const scope = scopeOf(key)
      expect(operation(key)!.security, key).toEqual(scope ? [...person, { serviceCredential: [scope] }] : person)
      if (scope) expect(operation(key)!.description, key).toContain(`\`${scope}\` scope`)
    }
    expect(operation('DELETE /admin/users/:id')!.security).toEqual([{ bearerAuth: [], csrfToken: [] }, { serviceCredential: ['users:delete'] }])
  })
})

describe('the reference page', () => {
  const t = useTestApp()

  it('is served with the product’s strict policy: no inline script, every file from this server', async () => {
    const page = await t.request('GET', '/api/docs')
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    const csp = String(page.headers['content-security-policy'])
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toContain('unsafe-eval')
    expect(csp).toContain("object-src 'none'")
    expect(csp).toContain("frame-ancestors 'none'")
    // Every script is a file of this server, none is inline, and nothing comes from elsewhere.
    const scripts = [...page.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)]
    expect(scripts.length).toBeGreaterThan(0)
    for (const [, attributes, content] of scripts) {
      expect(content!.trim()).toBe('')
      expect(attributes).toMatch(/src="\/api\/docs\/[\w.-]+"/)
    }
    const files = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    expect(files.filter((file) => !file.startsWith('/api/'))).toEqual([])
    for (const file of files) {
      const answer = await t.request('GET', file)
      expect(answer.statusCode, file).toBe(200)
      expect(answer.body.length, file).toBeGreaterThan(0)
    }
  })

  it('serves Swagger UI and its own start-up script, and nothing else from the folder', async () => {
    const bundle = await t.request('GET', '/api/docs/swagger-ui-bundle.js')
    expect(bundle.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(bundle.body).toContain('SwaggerUIBundle')
    const start = await t.request('GET', '/api/docs/reference.js')
    expect(start.body).toContain("url: '/api/openapi.json'")
    expect(start.body).toContain('validatorUrl: null')
    for (const file of ['package.json', 'index.html', 'swagger-ui-bundle.js.map', '..%2F..%2Fpackage.json', 'constructor', '__proto__']) {
      const answer = await t.request('GET', `/api/docs/${file}`)
      expect(answer.statusCode, file).toBe(404)
      expect(answer.json()).toMatchObject({ success: false, code: 'NOT_FOUND' })
    }
  })
})

describe('the check of every answer against the document', () => {
  const t = useTestApp()

  /** A second app on the same context, checked against a copy of the document edited by `edit`. */
  async function checkedAgainst(edit: (doc: { paths: Record<string, Record<string, Operation>> }) => void) {
    const { buildApp } = await import('~server/app')
    const app = await buildApp(t.ctx)
    const violations = installResponseContract(app, () => {
      const doc = structuredClone(app.swagger()) as unknown as { paths: Record<string, Record<string, Operation>> }
      edit(doc)
      return doc
    })
    await app.ready()
    return { app, violations }
  }

  it('passes answers the document describes', async () => {
    const { app, violations } = await checkedAgainst(() => {})
    try {
      for (const url of ['/api/health', '/api/health/live', '/api/auth/me', '/api/no-such-thing', '/api/docs/nothing-here']) await app.inject({ method: 'GET', url })
      await app.inject({ method: 'POST', url: '/api/auth/login', payload: 'x', headers: { 'content-type': 'text/plain' } })
      expect(violations).toEqual([])
    } finally {
      await app.close()
    }
  })

  it('fails an undeclared status, an undeclared content type and a body off its schema', async () => {
    const { app, violations } = await checkedAgainst((doc) => {
      delete doc.paths['/api/health/live']!.get!.responses['200']
      const ready = doc.paths['/api/health/ready']!.get!.responses['200']!
      ready.content = { 'text/plain': ready.content!['application/json']! }
      const health = doc.paths['/api/health']!.get!.responses['200']!.content!['application/json']!.schema as { required: string[] }
      health.required = [...health.required, 'uptime']
    })
    try {
      await app.inject({ method: 'GET', url: '/api/health/live' })
      await app.inject({ method: 'GET', url: '/api/health/ready' })
      await app.inject({ method: 'GET', url: '/api/health' })
      expect(violations.map((v) => v.problem)).toEqual([
        'status 200 is not declared for GET /api/health/live',
        'content type "application/json" is not declared for 200 (declared: text/plain)',
        expect.stringMatching(/^the 200 body does not match its schema: .*uptime/),
      ])
    } finally {
      await app.close()
    }
  })
})
