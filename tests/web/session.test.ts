import { describe, expect, test, vi } from 'vitest'
import type { ApiClient } from '~web/lib/api-client'
import { ApiError } from '~web/lib/failures'
import { createAuthStorage, type KeyValueStore } from '~web/lib/auth-storage'
import { createSession } from '~web/lib/session'
import { makeUser } from './support/users'

function memoryStore(initial: Record<string, string> = {}): KeyValueStore {
  const data = new Map(Object.entries(initial))
  return { getItem: (key) => data.get(key) ?? null, setItem: (key, value) => void data.set(key, value), removeItem: (key) => void data.delete(key) }
}

const stored = makeUser({ name: 'Stored' })
const storedSession = () => memoryStore({ accessToken: 'a', refreshToken: 'r', csrfToken: 'c', user: JSON.stringify(stored) })

function clientAnswering(me: () => Promise<unknown>): ApiClient {
  return { get: vi.fn(async () => ({ success: true, data: await me() })), post: vi.fn(async () => ({ success: true, data: undefined })) } as unknown as ApiClient
}

describe('session', () => {
  test('without a stored token: ready and signed out, no call', async () => {
    const client = clientAnswering(async () => stored)
    const current = createSession(client, createAuthStorage(memoryStore()))
    await current.start()
    expect(current.get()).toEqual({ status: 'ready', user: null, authenticated: false })
    expect(client.get).not.toHaveBeenCalled()
  })

  test('with a stored token: loading, then the current user; authenticated = user and token', async () => {
    const fresh = makeUser({ name: 'Fresh' })
    const store = storedSession()
    const current = createSession(
      clientAnswering(async () => fresh),
      createAuthStorage(store),
    )
    const started = current.start()
    expect(current.get().status).toBe('loading')
    await started
    expect(current.get()).toEqual({ status: 'ready', user: fresh, authenticated: true })
    expect(JSON.parse(store.getItem('user')!).name).toBe('Fresh')
  })

  test('a failed load clears the stored session', async () => {
    const store = storedSession()
    const current = createSession(
      clientAnswering(() => Promise.reject(new ApiError(401, 'Invalid or expired access token'))),
      createAuthStorage(store),
    )
    await current.start()
    expect(current.get().authenticated).toBe(false)
    expect(store.getItem('accessToken')).toBeNull()
    expect(store.getItem('user')).toBeNull()
  })

  test('unless the account is inactive or suspended: kept, with that status (the guard then shows why)', async () => {
    const store = storedSession()
    const current = createSession(
      clientAnswering(() => Promise.reject(new ApiError(403, 'Account is suspended', 'ACCOUNT_SUSPENDED'))),
      createAuthStorage(store),
    )
    await current.start()
    expect(store.getItem('accessToken')).toBe('a')
    expect(current.get().user?.status).toBe('SUSPENDED')
  })

  test('an unreachable server keeps the stored session', async () => {
    const store = storedSession()
    const current = createSession(
      clientAnswering(() => Promise.reject(new ApiError(0, 'Network error'))),
      createAuthStorage(store),
    )
    await current.start()
    expect(current.get()).toMatchObject({ user: { name: 'Stored' }, authenticated: true })
  })

  test('sign-out clears everything even when the server call fails', async () => {
    const store = storedSession()
    const client = { post: vi.fn(async () => Promise.reject(new ApiError(500, 'boom'))) } as unknown as ApiClient
    const current = createSession(client, createAuthStorage(store))
    current.signIn({ accessToken: 'a', refreshToken: 'r', csrfToken: 'c', user: stored })
    await current.signOut()
    expect(client.post).toHaveBeenCalledWith('/auth/logout')
    expect(['accessToken', 'refreshToken', 'csrfToken', 'user'].map((key) => store.getItem(key))).toEqual([null, null, null, null])
    expect(current.get().authenticated).toBe(false)
  })

  test('a sign-in in another tab is picked up from storage', () => {
    const store = memoryStore()
    const current = createSession(
      clientAnswering(async () => stored),
      createAuthStorage(store),
    )
    createAuthStorage(store).saveSession({ accessToken: 'a2', refreshToken: 'r2', csrfToken: 'c2', user: stored })
    current.syncFromStorage()
    expect(current.get()).toMatchObject({ user: { name: 'Stored' }, authenticated: true })
  })
})
