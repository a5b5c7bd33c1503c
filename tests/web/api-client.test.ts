import { describe, expect, test, vi } from 'vitest'
import { type ApiClient, createApiClient } from '~web/lib/api-client'
import { ApiError } from '~web/lib/failures'
import { createAuthStorage, type KeyValueStore } from '~web/lib/auth-storage'
import { inTabLock, webLock } from '~web/lib/refresh-lock'

/** localStorage as every tab of the origin sees it. */
function sharedStore(initial: Record<string, string> = {}): KeyValueStore {
  const data = new Map(Object.entries(initial))
  return {
    getItem: (key) => data.get(key) ?? null,
    setItem: (key, value) => void data.set(key, value),
    removeItem: (key) => void data.delete(key),
  }
}

/** The Web Locks API as the browser gives it to every tab: one holder per name, the others queue. */
function fakeLockManager() {
  const tails = new Map<string, Promise<unknown>>()
  const held = new Set<string>()
  function request<T>(name: string, ...args: unknown[]): Promise<T> {
    const callback = args.at(-1) as (lock: unknown) => Promise<T>
    const { ifAvailable } = (args.length > 1 ? args[0] : {}) as { ifAvailable?: boolean }
    if (ifAvailable && held.has(name)) return callback(null)
    const previous = tails.get(name) ?? Promise.resolve()
    const result = previous.then(async () => {
      held.add(name)
      try {
        return await callback({ name })
      } finally {
        held.delete(name)
      }
    })
    tails.set(
      name,
      result.catch(() => undefined),
    )
    return result
  }
  return { request }
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } })

/**
 * A server that accepts one access token at a time and rotates refresh tokens, slowly enough
 * that concurrent callers overlap.
 */
function fakeServer(options: { refreshWorks?: boolean } = {}) {
  let validAccess = 'access-2'
  let validRefresh = 'refresh-1'
  let rotation = 1
  const calls: Array<{ path: string; method: string; headers: Headers; body?: string }> = []
  const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const path = String(input)
      .replace(/^\/api/, '')
      .split('?')[0]!
    const headers = new Headers(init.headers)
    calls.push({ path, method: init.method ?? 'GET', headers, body: init.body as string | undefined })
    await new Promise((resolve) => setTimeout(resolve, 5))
    if (path === '/auth/refresh-token') {
      const { refreshToken } = JSON.parse(String(init.body)) as { refreshToken: string }
      if (options.refreshWorks === false || refreshToken !== validRefresh)
        return json(401, { success: false, message: 'Invalid or expired refresh token', code: 'REFRESH_INVALID' })
      rotation += 1
      validAccess = `access-${rotation + 1}`
      validRefresh = `refresh-${rotation}`
      return json(
        200,
        { success: true, data: { accessToken: validAccess, refreshToken: validRefresh, csrfToken: `csrf-${rotation}` } },
        { 'X-CSRF-Token': `csrf-${rotation}` },
      )
    }
    if (headers.get('Authorization') !== `Bearer ${validAccess}`) {
      return json(401, { success: false, message: 'Invalid or expired access token', code: 'TOKEN_INVALID' })
    }
    return json(200, { success: true, data: { path } })
  })
  return { fetch, calls, refreshCalls: () => calls.filter((call) => call.path === '/auth/refresh-token').length }
}

const expiredSession = { accessToken: 'access-1', refreshToken: 'refresh-1', csrfToken: 'csrf-1' }

describe('the API client', () => {
  test('sends the bearer token, and the CSRF token only on writes', async () => {
    const fetch = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) => json(200, { success: true, data: null }))
    const storage = createAuthStorage(sharedStore({ accessToken: 'tok', csrfToken: 'csrf' }))
    const client = createApiClient({ storage, fetch, lock: inTabLock() })
    await client.get('/users/profile')
    await client.put('/users/profile', { name: 'Ann' })
    const [getInit, putInit] = fetch.mock.calls.map((call) => new Headers((call as unknown as [string, RequestInit])[1].headers))
    expect(getInit!.get('Authorization')).toBe('Bearer tok')
    expect(getInit!.get('X-CSRF-Token')).toBeNull()
    expect(putInit!.get('X-CSRF-Token')).toBe('csrf')
    expect(putInit!.get('Content-Type')).toBe('application/json')
  })

  test('says which language the interface is in, so that the e-mails a call causes are written in it', async () => {
    const fetch = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) => json(201, { success: true, data: { email: 'a@example.com' } }))
    let language = 'fr'
    const client = createApiClient({ storage: createAuthStorage(sharedStore()), fetch, lock: inTabLock(), language: () => language })
    await client.post('/auth/register', { name: 'Ann' })
    language = 'de'
    await client.post('/auth/forgot-password', { email: 'a@example.com' })
    const sent = (fetch.mock.calls as unknown as [string, RequestInit][]).map((call) => new Headers(call[1].headers).get('Accept-Language'))
    expect(sent).toEqual(['fr', 'de'])
  })

  test('a request without a body has no Content-Type (the server refuses an empty JSON body)', async () => {
    const fetch = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) => json(200, { success: true }))
    const client = createApiClient({ storage: createAuthStorage(sharedStore({ accessToken: 'tok', csrfToken: 'c' })), fetch, lock: inTabLock() })
    await client.post('/auth/logout')
    await client.delete('/admin/users/1')
    for (const call of fetch.mock.calls as unknown as [string, RequestInit][]) {
      expect(new Headers(call[1].headers).has('Content-Type')).toBe(false)
      expect(call[1].body).toBeUndefined()
    }
  })

  test('a CSRF token in an answer replaces the stored one', async () => {
    const store = sharedStore({ accessToken: 'tok', csrfToken: 'old' })
    const fetch = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) => json(200, { success: true, data: {} }, { 'X-CSRF-Token': 'fresh' }))
    await createApiClient({ storage: createAuthStorage(store), fetch, lock: inTabLock() }).get('/auth/csrf-token')
    expect(store.getItem('csrfToken')).toBe('fresh')
  })

  test('leaves out empty query values', async () => {
    const fetch = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) => json(200, { success: true, data: {} }))
    await createApiClient({ storage: createAuthStorage(sharedStore()), fetch, lock: inTabLock() }).get('/activity', {
      query: { page: 1, limit: 20, search: '', activity: undefined },
    })
    expect(fetch.mock.calls[0]![0]).toBe('/api/activity?page=1&limit=20')
  })

  test('a failure carries the server message, code and field errors', async () => {
    const fetch = vi.fn(async () =>
      json(400, { success: false, message: 'Invalid email address', code: 'VALIDATION_ERROR', errors: [{ field: 'email', message: 'Invalid email address' }] }),
    )
    const error = await createApiClient({ storage: createAuthStorage(sharedStore()), fetch, lock: inTabLock() })
      .post('/auth/register', {})
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({
      status: 400,
      message: 'Invalid email address',
      code: 'VALIDATION_ERROR',
      fieldErrors: [{ field: 'email', message: 'Invalid email address' }],
    })
  })

  test('gives up after 10 seconds', async () => {
    vi.useFakeTimers()
    const fetch = vi.fn(
      (_input: RequestInfo | URL, init: RequestInit = {}) =>
        new Promise<Response>((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError')))),
    )
    const pending = createApiClient({ storage: createAuthStorage(sharedStore()), fetch, lock: inTabLock() })
      .get('/health')
      .catch((caught: unknown) => caught)
    await vi.advanceTimersByTimeAsync(9_999)
    expect(fetch).toHaveBeenCalledTimes(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(await pending).toMatchObject({ status: 0, code: 'TIMEOUT' })
  })

  test('on a 401 it refreshes once and retries with the new token', async () => {
    const server = fakeServer()
    const store = sharedStore(expiredSession)
    const client = createApiClient({ storage: createAuthStorage(store), fetch: server.fetch, lock: inTabLock() })
    const { data } = await client.get<{ path: string }>('/users/profile')
    expect(data.path).toBe('/users/profile')
    expect(server.refreshCalls()).toBe(1)
    expect(store.getItem('accessToken')).toBe('access-3')
    expect(store.getItem('refreshToken')).toBe('refresh-2')
    expect(store.getItem('csrfToken')).toBe('csrf-2')
    const retried = server.calls.at(-1)!
    expect(retried.headers.get('Authorization')).toBe('Bearer access-3')
  })

  test('concurrent 401s in one tab share one refresh', async () => {
    const server = fakeServer()
    const client = createApiClient({ storage: createAuthStorage(sharedStore(expiredSession)), fetch: server.fetch, lock: inTabLock() })
    await Promise.all([client.get('/users/profile'), client.get('/activity'), client.put('/users/profile', { name: 'Ann' })])
    expect(server.refreshCalls()).toBe(1)
  })

  test('two tabs sharing storage and the lock: exactly one refresh, and both retry with its token', async () => {
    const server = fakeServer()
    const store = sharedStore(expiredSession)
    const locks = fakeLockManager()
    const tab = (): ApiClient => createApiClient({ storage: createAuthStorage(store), fetch: server.fetch, lock: webLock(locks) })
    const [first, second] = [tab(), tab()]

    const results = await Promise.all([first.get('/users/profile'), second.get('/activity'), second.get('/auth/me')])

    expect(results.map((result) => result.success)).toEqual([true, true, true])
    expect(server.refreshCalls()).toBe(1)
    const retries = server.calls.filter((call) => call.path !== '/auth/refresh-token' && call.headers.get('Authorization') === 'Bearer access-3')
    expect(retries).toHaveLength(3)
  })

  test("a tab that waited for the lock gives the other tab's fresh token a moment to reach it", async () => {
    const server = fakeServer()
    const store = sharedStore(expiredSession)
    // The second tab sees the first tab's write only once it "arrives" (browsers sync localStorage
    // between tabs asynchronously, and the lock can be handed over first).
    let arrived = false
    const laggingView: KeyValueStore = {
      getItem: (key) => (key === 'accessToken' && !arrived ? 'access-1' : store.getItem(key)),
      setItem: (key, value) => store.setItem(key, value),
      removeItem: (key) => store.removeItem(key),
    }
    const locks = fakeLockManager()
    const storageSettled = vi.fn(async () => {
      arrived = true
    })
    const first = createApiClient({ storage: createAuthStorage(store), fetch: server.fetch, lock: webLock(locks) })
    const second = createApiClient({ storage: createAuthStorage(laggingView), fetch: server.fetch, lock: webLock(locks), storageSettled })

    await Promise.all([first.get('/users/profile'), second.get('/activity')])

    expect(server.refreshCalls()).toBe(1)
    expect(storageSettled).toHaveBeenCalledTimes(1)
  })

  test('when the refresh is refused: storage cleared, session ended once, the call fails', async () => {
    const server = fakeServer({ refreshWorks: false })
    const store = sharedStore({ ...expiredSession, user: '{"id":"1"}' })
    const onSessionEnded = vi.fn()
    const client = createApiClient({ storage: createAuthStorage(store), fetch: server.fetch, lock: inTabLock(), onSessionEnded })
    const error = await client.get('/users/profile').catch((caught: unknown) => caught)
    expect(error).toMatchObject({ status: 401 })
    expect(server.refreshCalls()).toBe(1)
    expect(['accessToken', 'refreshToken', 'user', 'csrfToken'].map((key) => store.getItem(key))).toEqual([null, null, null, null])
    expect(onSessionEnded).toHaveBeenCalledTimes(1)
  })

  test('a failed sign-in is not refreshed', async () => {
    const fetch = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) =>
      json(401, { success: false, message: 'Invalid credentials', code: 'INVALID_CREDENTIALS' }),
    )
    const client = createApiClient({ storage: createAuthStorage(sharedStore({ accessToken: 'stale', refreshToken: 'r' })), fetch, lock: inTabLock() })
    await expect(client.post('/auth/login', { email: 'a@example.com', password: 'x' })).rejects.toMatchObject({ message: 'Invalid credentials' })
    expect(fetch).toHaveBeenCalledTimes(1)
  })

  test('an inactive or suspended account is reported, never refreshed', async () => {
    const fetch = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) =>
      json(403, { success: false, message: 'Account is suspended', code: 'ACCOUNT_SUSPENDED' }),
    )
    const onAccountBlocked = vi.fn()
    const client = createApiClient({ storage: createAuthStorage(sharedStore({ accessToken: 'tok', refreshToken: 'r' })), fetch, lock: inTabLock(), onAccountBlocked })
    await expect(client.get('/users/profile')).rejects.toMatchObject({ status: 403 })
    expect(fetch).toHaveBeenCalledTimes(1)
    expect(onAccountBlocked).toHaveBeenCalledWith('suspended')
  })

  test('a refused CSRF token is fetched again once, then the write is retried', async () => {
    const store = sharedStore({ accessToken: 'tok', csrfToken: 'stale' })
    const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      if (String(input) === '/api/auth/csrf-token') return json(200, { success: true, data: { csrfToken: 'fresh' } })
      if (new Headers(init.headers).get('X-CSRF-Token') !== 'fresh') return json(403, { success: false, message: 'Invalid or missing CSRF token', code: 'CSRF_INVALID' })
      return json(200, { success: true, data: 'saved' })
    })
    const { data } = await createApiClient({ storage: createAuthStorage(store), fetch, lock: inTabLock() }).put('/users/profile', { name: 'Ann' })
    expect(data).toBe('saved')
    expect(store.getItem('csrfToken')).toBe('fresh')
    expect(fetch).toHaveBeenCalledTimes(3)
  })
})
