import { isDeepStrictEqual } from 'node:util'
import type { LightMyRequestResponse } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../support/test-app'
import { quickSignIn, quickUser } from '../helpers/users'
import { ALL_ENDPOINTS, BODILESS_POSTS, BODY_ENDPOINTS, type BodyEndpoint, type Callers, catalogueGaps, send, UNISSUED_TOKEN } from './endpoints'

/**
 * Input (checklist: V1, V2, V15). Every endpoint that takes a body gets the same hostile bodies,
 * every list gets the same hostile queries, every e-mail field the same hostile addresses: the
 * answer is a 4xx with the API's envelope, never a 5xx and never a hang, and nothing leaks
 * into the process or the database. The endpoint list comes from the permission table.
 */

const t = useTestApp()
let callers: Callers
/** Someone whose name holds a quote and the LIKE wildcards, found by searches, edited by no test. */
let literalId: string
beforeAll(async () => {
  const [user, admin, target, literal] = await Promise.all([
    quickSignIn(t, { name: 'Input Tester' }),
    quickSignIn(t, { role: 'ADMIN', name: 'Input Admin' }),
    quickUser(t, { name: 'Edit Target' }),
    quickUser(t, { name: "O'Brien 100%_\\ Literal" }),
  ])
  callers = { user, admin, targetId: target.id }
  literalId = literal.id
})

/** "Does not hang": far above any honest answer, far below a client's patience. */
const PROMPTLY_MS = 5_000

async function timed(request: Promise<LightMyRequestResponse>) {
  const started = performance.now()
  const response = await request
  return { response, ms: performance.now() - started }
}

function expectEnvelope(response: LightMyRequestResponse, status: number, code?: string) {
  expect(response.statusCode, response.body.slice(0, 300)).toBe(status)
  const body = response.json()
  expect(body).toMatchObject({ success: false, message: expect.any(String), requestId: expect.any(String) })
  if (code) expect(body.code).toBe(code)
  return body as { code: string; message: string; errors?: { field: string; message: string }[] }
}

const field = (endpoint: BodyEndpoint) => Object.keys(endpoint.schema.shape)[0]!

it('walks every route of the permission table', () => {
  expect(catalogueGaps()).toEqual([])
})

describe('prototype poisoning in a body', () => {
  const poisoned = (endpoint: BodyEndpoint | undefined) => {
    const first = endpoint ? field(endpoint) : 'name'
    return [
      `{"__proto__":{"polluted":"yes","role":"ADMIN"}}`,
      `{"${first}":"x","__proto__":{"polluted":"yes"}}`,
      `{"${first}":{"__proto__":{"polluted":"yes"}}}`,
      `{"${first}":[{"__proto__":{"polluted":"yes"}}]}`,
      `{"constructor":{"prototype":{"polluted":"yes"}}}`,
      `{"${first}":{"constructor":{"prototype":{"polluted":"yes"}}}}`,
      // The same names written with JSON escapes.
      `{"\\u005f_proto__":{"polluted":"yes"}}`,
      `{"constructor":{"\\u0070rototype":{"polluted":"yes"}}}`,
    ]
  }

  it.each([...BODY_ENDPOINTS, ...BODILESS_POSTS].map((e) => [e.key, e] as const))('%s: 400, and no object gains a property', async (_key, endpoint) => {
    for (const payload of poisoned('schema' in endpoint ? (endpoint as BodyEndpoint) : undefined)) {
      const response = await send(t, endpoint, callers, { payload })
      const body = expectEnvelope(response, 400, 'BAD_REQUEST')
      expect(body.message, payload).toBe('Request body contains a forbidden property name')
    }
    const probe = {} as Record<string, unknown>
    expect(probe.polluted).toBeUndefined()
    expect(probe.role).toBeUndefined()
    expect(Object.keys(Object.prototype)).toEqual([])
  })

  it('changes nothing for the signed-in user who sent them', async () => {
    const before = await t.ctx.db.selectFrom('users').selectAll().where('id', '=', callers.user.id).executeTakeFirstOrThrow()
    await send(
      t,
      BODY_ENDPOINTS.find((e) => e.key === 'PUT /users/profile')!,
      callers,
      {
        payload: '{"name":"Poisoned Name","__proto__":{"role":"ADMIN"}}',
      },
    )
    expect(await t.ctx.db.selectFrom('users').selectAll().where('id', '=', callers.user.id).executeTakeFirstOrThrow()).toEqual(before)
  })
})

describe('bodies of a hostile size or shape', () => {
  const tooLarge = BODY_ENDPOINTS.filter((endpoint) => endpoint.key !== 'POST /users/profile-picture')

  // The picture upload has a 10 MB limit; its 413 is proved in tests/api/pictures.test.ts.
  it.each([...tooLarge, ...BODILESS_POSTS].map((e) => [e.key, e] as const))('%s: over 1 MB is a 413', async (_key, endpoint) => {
    const name = 'schema' in endpoint ? field(endpoint as BodyEndpoint) : 'x'
    const payload = JSON.stringify({ [name]: 'x'.repeat(1024 * 1024) })
    expectEnvelope(await send(t, endpoint, callers, { payload }), 413, 'PAYLOAD_TOO_LARGE')
  })

  const shapes = (name: string) =>
    [
      ['10,000 nested arrays', `${'['.repeat(10_000)}${']'.repeat(10_000)}`],
      ['10,000 nested objects', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`],
      ['10,000 nested arrays in a field', `{"${name}":${'['.repeat(10_000)}${']'.repeat(10_000)}}`],
      ['an array of 400,000 numbers in a field', `{"${name}":[${'0,'.repeat(400_000)}0]}`],
      ['an array of 400,000 numbers as the body', `[${'0,'.repeat(400_000)}0]`],
      ['50,000 unknown fields', `{${Array.from({ length: 50_000 }, (_, i) => `"f${i}":1`).join(',')}}`],
    ] as const

  it.each(BODY_ENDPOINTS.map((e) => [e.key, e] as const))('%s: deep nesting, huge arrays and masses of fields are a prompt 400', async (_key, endpoint) => {
    for (const [shape, payload] of shapes(field(endpoint))) {
      const { response, ms } = await timed(send(t, endpoint, callers, { payload }))
      const body = expectEnvelope(response, 400)
      expect(ms, shape).toBeLessThan(PROMPTLY_MS)
      // The answer names a few problems; it is never larger than a page.
      expect(body.errors?.length ?? 0, shape).toBeLessThanOrEqual(20)
      expect(response.body.length, shape).toBeLessThan(4_000)
    }
  })
})

describe('every field of every body, given the wrong type', () => {
  const WRONG: [string, unknown][] = [
    ['null', null],
    ['a number', 42],
    ['a negative number', -1],
    ['a fraction', 1.5],
    ['a huge number', 1e308],
    ['true', true],
    ['false', false],
    ['an empty array', []],
    ['an array of a string', ['someone@example.com']],
    ['an empty object', {}],
    ['a query operator', { $gt: '' }],
    ['an object with a length', { length: 10 }],
  ]
  const HOSTILE_STRINGS: [string, string][] = [
    ['an empty string', ''],
    ['10,000 characters', 'x'.repeat(10_000)],
    ['a NUL character', '\u0000'],
    ['a NUL inside an address', 'some\u0000one@example.com'],
    ['an SQL fragment', "' OR '1'='1' --"],
  ]
  /** Values among the wrong ones that a field takes: no phone or back-channel URI, a flag, an empty list. */
  const ACCEPTED: Record<string, unknown[]> = {
    phone: [null],
    backchannelLogoutUri: [null],
    firstParty: [true, false],
    deviceFlow: [true, false],
    enabled: [true, false],
    postLogoutRedirectUris: [[]],
    allowedRoles: [[]],
    showOnSignIn: [true, false],
    trustEmail: [true, false],
    allowSignUp: [true, false],
    syncRoles: [true, false],
    emailDomains: [[]],
    roleRules: [[]],
    freshSignIn: [true],
    expiresAt: [null],
    // null puts a provider's field back to its kind's default (decision 0519).
    tenant: [null],
    scopes: [null],
    baseUrl: [null],
    samlEmailAttribute: [null],
    samlNameAttribute: [null],
  }
  const accepts = (name: string, value: unknown) => (ACCEPTED[name] ?? []).some((taken) => isDeepStrictEqual(taken, value))

  const cells = BODY_ENDPOINTS.flatMap((endpoint) => Object.keys(endpoint.schema.shape).map((name) => [endpoint.key, name, endpoint] as const))

  it.each(cells)('%s, field %s: 400 naming the field for every wrong type, never a 5xx for any string', async (_key, name, endpoint) => {
    for (const [label, value] of WRONG) {
      if (accepts(name, value)) continue
      const response = await send(t, endpoint, callers, { body: { ...endpoint.valid(), [name]: value } })
      const body = expectEnvelope(response, 400, 'VALIDATION_ERROR')
      // The field itself, or a member of it when it is an object (a passkey response's `response.id`).
      expect(
        body.errors?.some((e) => e.field === name || e.field.startsWith(`${name}.`)),
        `${label}: ${JSON.stringify(body.errors)}`,
      ).toBe(true)
    }
    for (const [label, value] of HOSTILE_STRINGS) {
      const response = await send(t, endpoint, callers, { body: { ...endpoint.valid(), [name]: value } })
      expect(response.statusCode, `${label}: ${response.body.slice(0, 200)}`).toBeLessThan(500)
    }
  })

  it.each(BODY_ENDPOINTS.map((e) => [e.key, e] as const))('%s: a body that is not an object is a 400', async (_key, endpoint) => {
    for (const value of [null, [], 'a string', 42, true, [endpoint.valid()]]) {
      expectEnvelope(await send(t, endpoint, callers, { body: value }), 400)
    }
  })
})

describe('text that is not well-formed Unicode', () => {
  const NOT_UNICODE = 'Request body contains text that is not valid Unicode'
  const cells = BODY_ENDPOINTS.flatMap((endpoint) => Object.keys(endpoint.schema.shape).map((name) => [endpoint.key, name, endpoint] as const))
  const rows = async () => {
    const [users, activities] = await Promise.all([
      t.ctx.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow(),
      t.ctx.db
        .selectFrom('activities')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow(),
    ])
    return { users: Number(users.n), activities: Number(activities.n) }
  }

  it.each(cells)('%s, field %s: a lone surrogate, alone or beside good text, is a 400 that changes nothing', async (_key, name, endpoint) => {
    const before = await rows()
    // JSON.stringify spells a lone surrogate as an escape (\ud800), which is how it arrives.
    for (const value of ['\ud800', '\udfff@example.com', `x\ud83d`, `Ada \ude00 Lovelace`]) {
      const body = expectEnvelope(await send(t, endpoint, callers, { body: { ...endpoint.valid(), [name]: value } }), 400, 'BAD_REQUEST')
      expect(body.message).toBe(NOT_UNICODE)
    }
    expect(await rows()).toEqual(before)
  })

  it('is refused in a field name too, and a well-formed pair (an emoji) is welcome', async () => {
    const register = BODY_ENDPOINTS.find((endpoint) => endpoint.key === 'POST /auth/register')!
    expectEnvelope(await send(t, register, callers, { payload: `{"\\ud800":1}` }), 400, 'BAD_REQUEST')
    const email = `emoji-${Date.now()}@example.com`
    const welcome = await send(t, register, callers, { body: { ...register.valid(), name: 'Ada \ud83e\udd8a Lovelace', email } })
    expect(welcome.statusCode, welcome.body).toBe(201)
    const stored = await t.ctx.db.selectFrom('users').select('name').where('email', '=', email).executeTakeFirstOrThrow()
    expect(stored.name).toBe('Ada 🦊 Lovelace')
  })
})

describe('search and filter parameters', () => {
  const LISTS = ['/api/admin/users', '/api/admin/activity-logs', '/api/activity']
  const PARAMS: Record<string, string[]> = {
    '/api/admin/users': ['page', 'limit', 'search', 'role', 'status'],
    '/api/admin/activity-logs': ['page', 'limit', 'search', 'activity'],
    '/api/activity': ['page', 'limit', 'search', 'activity'],
  }
  const HOSTILE = [
    '',
    ' ',
    'abc',
    '-1',
    '0',
    '1.5',
    '1e400',
    '0x10',
    '9'.repeat(400),
    "' OR '1'='1",
    "'; DROP TABLE users; --",
    '1) OR (1=1',
    '%',
    '_',
    '\\',
    '%%',
    '\u0000',
    '\n',
    'null',
    '[object Object]',
    '__proto__',
    "ADMIN' OR role='ADMIN",
    'a'.repeat(5_000),
  ]
  const get = (url: string) => t.request('GET', url, { token: callers.admin.accessToken })

  it.each(LISTS)('%s: every parameter, any value, given once or twice: 200 or 400, never a 5xx', async (list) => {
    for (const param of PARAMS[list]!) {
      for (const value of HOSTILE) {
        for (const query of [`${param}=${encodeURIComponent(value)}`, `${param}=1&${param}=${encodeURIComponent(value)}`]) {
          const response = await get(`${list}?${query}`)
          expect([200, 400], `${query}: ${response.body.slice(0, 200)}`).toContain(response.statusCode)
          if (response.statusCode === 400) expect(response.json().code).toBe('VALIDATION_ERROR')
        }
      }
    }
  })

  it.each(LISTS)('%s: page and limit are plain decimal integers above zero, nothing else', async (list) => {
    for (const param of ['page', 'limit']) {
      for (const value of ['0x10', '1e3', '+1', '1.0', ' 1', '1 ', '0', '00', '-0', 'Infinity', 'NaN', '\uff11', '1_000', '0b1']) {
        expectEnvelope(await get(`${list}?${param}=${encodeURIComponent(value)}`), 400, 'VALIDATION_ERROR')
      }
      for (const [value, read] of [
        ['3', 3],
        ['03', 3],
        ['100', 100],
      ] as const) {
        const response = await get(`${list}?${param}=${value}`)
        expect(response.statusCode, response.body.slice(0, 200)).toBe(200)
        expect(response.json().data.pagination[param]).toBe(read)
      }
    }
  })

  it.each(LISTS)('%s: names that are not parameters, nested or not, are a 400', async (list) => {
    for (const query of ['__proto__=x', 'constructor[prototype][polluted]=1', 'search[]=a', 'page[$gt]=0', 'orderBy=password_hash', 'where=1%3D1']) {
      expectEnvelope(await get(`${list}?${query}`), 400, 'VALIDATION_ERROR')
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  /** What a list found, as the text a person would search through. */
  const haystacks = (list: string, data: any): string[] =>
    list === '/api/admin/users'
      ? data.users.map((u: any) => `${u.name}\n${u.email}`)
      : data.activities.map((a: any) => [a.activity, a.details, a.user?.name, a.user?.email].join('\n'))

  it.each(LISTS)('%s: quotes, wildcards and SQL are searched for as text', async (list) => {
    for (const term of ["O'Brien", '100%', '%_\\', '_\\ L', "' OR '1'='1", "'; DROP TABLE users; --", '%', '_', '\\', '%%']) {
      const response = await get(`${list}?search=${encodeURIComponent(term)}`)
      expect(response.statusCode, response.body).toBe(200)
      for (const text of haystacks(list, response.json().data)) expect(text.toLowerCase()).toContain(term.toLowerCase())
    }
    // And a literal match is found where there is one.
    if (list === '/api/admin/users') {
      for (const term of ["O'Brien", '100%_\\', 'n 100%_\\ l']) {
        const found = (await get(`${list}?search=${encodeURIComponent(term)}`)).json().data.users
        expect(
          found.map((u: { id: string }) => u.id),
          term,
        ).toEqual([literalId])
      }
    }
    // Still there: nothing was dropped or deleted.
    expect(await t.ctx.db.selectFrom('users').select('id').where('id', '=', literalId).executeTakeFirst()).toBeDefined()
  })
})

describe('path parameters', () => {
  const HOSTILE = ["' OR '1'='1", '%00', '%0A', '..%2F..%2Fetc%2Fpasswd', '%25', 'a'.repeat(150), 'a'.repeat(300), '%F0%9F%A6%8A', '%C0%AE']

  it('are a 4xx for ids, tokens and picture names, never a 5xx', async () => {
    for (const value of HOSTILE) {
      const answers = await Promise.all([
        t.request('GET', `/api/admin/users/${value}`, { token: callers.admin.accessToken }),
        t.request('DELETE', `/api/admin/users/${value}`, { token: callers.admin.accessToken, csrf: callers.admin.csrfToken }),
        t.request('GET', `/api/auth/verify-email/${value}`),
        t.request('POST', `/api/auth/reset-password/${value}`, { body: { password: 'Fresh-Start-2026!', confirmPassword: 'Fresh-Start-2026!' } }),
        t.request('POST', `/api/auth/accept-invite/${value}`, { body: { password: 'Fresh-Start-2026!', confirmPassword: 'Fresh-Start-2026!' } }),
        t.request('POST', `/api/admin/users/${value}/invitation`, { token: callers.admin.accessToken, csrf: callers.admin.csrfToken }),
        t.request('POST', `/api/admin/users/${value}/password-reset`, { token: callers.admin.accessToken, csrf: callers.admin.csrfToken }),
        t.request('DELETE', `/api/admin/users/${value}/sessions`, { token: callers.admin.accessToken, csrf: callers.admin.csrfToken }),
        t.request('GET', `/api/users/pictures/${value}`),
      ])
      for (const answer of answers) {
        expect(answer.statusCode, `${value}: ${answer.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400)
        expect(answer.statusCode, `${value}: ${answer.body.slice(0, 200)}`).toBeLessThan(500)
      }
    }
    expect(UNISSUED_TOKEN).toHaveLength(43)
  })
})

describe('e-mail addresses built to hurt', () => {
  const EMAIL_FIELDS = [...BODY_ENDPOINTS.filter((endpoint) => 'email' in endpoint.schema.shape).map((endpoint) => [endpoint.key, endpoint] as const)]

  it('cover every endpoint that takes an address', () => {
    expect(EMAIL_FIELDS.map(([key]) => key).sort()).toEqual(
      ['POST /auth/forgot-password', 'POST /auth/login', 'POST /auth/register', 'POST /auth/resend-verification', 'PUT /admin/users/:id', 'POST /admin/users'].sort(),
    )
  })

  const REGEX_BOMBS = [
    `${'a'.repeat(50_000)}@`,
    `${'a'.repeat(50_000)}@example.com`,
    `a@${'a.'.repeat(25_000)}`,
    `${'a.'.repeat(25_000)}@example.com`,
    `a@${'-'.repeat(50_000)}.com`,
    `${'@'.repeat(50_000)}`,
    `x@${'a'.repeat(62)}${'.a'.repeat(20_000)}!`,
  ]

  it.each(EMAIL_FIELDS)('%s: a regex-hostile address is a prompt 400, and the address pattern never sees it whole', async (_key, endpoint) => {
    const seen: number[] = []
    const test = RegExp.prototype.test
    const exec = RegExp.prototype.exec
    // Notes the length of every string matched against the address pattern while the request runs.
    RegExp.prototype.test = function (this: RegExp, input: string) {
      if (this.source.includes('@(?:localhost|')) seen.push(String(input).length)
      return test.call(this, input)
    }
    RegExp.prototype.exec = function (this: RegExp, input: string) {
      if (this.source.includes('@(?:localhost|')) seen.push(String(input).length)
      return exec.call(this, input)
    }
    try {
      for (const email of REGEX_BOMBS) {
        const { response, ms } = await timed(send(t, endpoint, callers, { body: { ...endpoint.valid(), email } }))
        const body = expectEnvelope(response, 400, 'VALIDATION_ERROR')
        expect(body.errors).toEqual(expect.arrayContaining([{ field: 'email', message: 'Invalid email address' }]))
        expect(ms).toBeLessThan(PROMPTLY_MS)
      }
    } finally {
      RegExp.prototype.test = test
      RegExp.prototype.exec = exec
    }
    expect(Math.max(0, ...seen)).toBeLessThanOrEqual(254)
  })

  const BREAKERS = [
    ['CR LF', 'victim@example.com\r\nBcc: attacker@example.com'],
    ['LF', 'victim@example.com\nBcc: attacker@example.com'],
    ['CR', 'victim@example.com\rBcc: attacker@example.com'],
    ['CR LF inside', 'vic\r\ntim@example.com'],
    ['a NUL', 'vic\u0000tim@example.com'],
    ['an ANSI escape', 'vic\u001b[2Jtim@example.com'],
    ['a DEL', 'vic\u007ftim@example.com'],
    ['a C1 control', 'vic\u0085tim@example.com'],
    ['a line separator', 'vic\u2028tim@example.com'],
    ['a tab', 'vic\ttim@example.com'],
  ] as const

  const queuedMail = async () =>
    Number(
      (
        await t.ctx.db
          .selectFrom('mail_jobs')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )

  it.each(EMAIL_FIELDS)('%s: line breaks and control characters in an address are a 400, and no mail is queued', async (_key, endpoint) => {
    await t.deliverMail()
    const before = await queuedMail()
    const target = await t.ctx.db.selectFrom('users').select(['email']).where('id', '=', callers.targetId).executeTakeFirstOrThrow()
    for (const [label, email] of BREAKERS) {
      const response = await send(t, endpoint, callers, { body: { ...endpoint.valid(), email } })
      const body = expectEnvelope(response, 400, 'VALIDATION_ERROR')
      expect(body.errors, label).toEqual(expect.arrayContaining([{ field: 'email', message: 'Invalid email address' }]))
    }
    expect(await queuedMail()).toBe(before)
    expect((await t.ctx.db.selectFrom('users').select(['email']).where('id', '=', callers.targetId).executeTakeFirstOrThrow()).email).toBe(target.email)
    const stored = await t.ctx.db.selectFrom('users').select('email').where('email', 'like', 'vic%').execute()
    expect(stored).toEqual([])
  })
})

it('answered everything above without a single 5xx in the log', () => {
  const failures = t.logs.filter((line) => /"level":50/.test(line))
  expect(failures, failures.slice(0, 2).join('\n')).toEqual([])
  expect(ALL_ENDPOINTS.length).toBeGreaterThan(20)
})
