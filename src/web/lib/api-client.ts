import { CSRF_HEADER, HTTP_TIMEOUT_MS } from '~shared/constants'
import type { Tokens } from '~shared/schemas/user'
import { currentLanguage } from './i18n'
import { type AuthStorage, SESSION_KEYS, authStorage } from './auth-storage'
import { ApiError, type BlockedState, blockedStateOf, failureCodeOf, type FieldError, NETWORK_ERROR_MESSAGE, TIMEOUT_MESSAGE } from './failures'
import { browserRefreshLock, type RefreshLock } from './refresh-lock'

/**
 * The one way the web app talks to /api: bearer token,
 * CSRF header on writes, a 10 s timeout, the envelope unwrapped into data or an ApiError, and on
 * a 401 one refresh of the session and one retry. Refreshes are single-flight inside a tab and,
 * through the refresh lock, across tabs: a tab that waited for the lock re-reads the stored
 * token and uses the one another tab just obtained instead of refreshing again.
 */

export interface Envelope<T> {
  success: true
  message?: string
  data: T
}

type Query = Record<string, string | number | null | undefined>

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  body?: unknown
  query?: Query
  signal?: AbortSignal
  /** Refresh the session and retry once on a 401 (default true). */
  retryOnUnauthorized?: boolean
  /** The answer is a file (a CSV export), not an envelope: data is `DownloadedFile`. */
  file?: boolean
  /** Longer than the usual 10 s, for a large file. */
  timeoutMs?: number
}

/** A file the server sent, with the name its Content-Disposition gives. */
export interface DownloadedFile {
  blob: Blob
  filename: string
}

export interface ApiClientOptions {
  storage: AuthStorage
  lock?: RefreshLock
  fetch?: typeof fetch
  baseUrl?: string
  timeoutMs?: number
  /**
   * The session is over: it could not be refreshed, or the server said it ended because the
   * account was suspended or deactivated (`blocked`). Storage is already cleared.
   */
  onSessionEnded?: (blocked: BlockedState | null) => void
  /** A signed-in call was refused because the account is inactive or suspended. */
  onAccountBlocked?: (state: BlockedState) => void
  /** Resolves when another tab's change of the stored session reaches this one (or after `ms`). */
  storageSettled?: (ms: number) => Promise<void>
  /** The interface language, sent as `Accept-Language`: what a call causes (an e-mail) is written in it. */
  language?: () => string
}

export interface ApiClient {
  request<T>(path: string, options?: RequestOptions): Promise<Envelope<T>>
  get<T>(path: string, options?: Omit<RequestOptions, 'method' | 'body'>): Promise<Envelope<T>>
  post<T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>): Promise<Envelope<T>>
  put<T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>): Promise<Envelope<T>>
  delete<T>(path: string, options?: Omit<RequestOptions, 'method' | 'body'>): Promise<Envelope<T>>
  /** GET of a file (a CSV export): signed in like any call, its body kept whole as a Blob. */
  download(path: string, options?: Omit<RequestOptions, 'method' | 'body' | 'file'>): Promise<DownloadedFile>
  /** Exchanges the stored refresh token once (shared by concurrent callers); the new access token or null. */
  refreshSession(staleAccessToken: string | null): Promise<string | null>
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
const REFRESH_PATH = '/auth/refresh-token'
const CSRF_PATH = '/auth/csrf-token'
/** Calls whose 401 means "wrong credentials", never "token expired". */
const NO_REFRESH_PATHS = new Set(['/auth/login', '/auth/login/mfa', REFRESH_PATH])

interface FailureBody {
  message?: unknown
  code?: unknown
  errors?: unknown
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const { storage } = options
  const lock = options.lock ?? browserRefreshLock()
  const baseUrl = options.baseUrl ?? '/api'
  const timeoutMs = options.timeoutMs ?? HTTP_TIMEOUT_MS
  let refreshing: Promise<string | null> | null = null

  async function send<T>(path: string, request: RequestOptions, accessToken: string | null): Promise<Envelope<T>> {
    const method = request.method ?? 'GET'
    const headers: Record<string, string> = { Accept: request.file ? 'text/csv, application/json' : 'application/json' }
    if (options.language) headers['Accept-Language'] = options.language()
    if (accessToken) headers.Authorization = `Bearer ${accessToken}`
    const csrf = storage.csrfToken()
    if (UNSAFE_METHODS.has(method) && csrf) headers[CSRF_HEADER] = csrf
    // No Content-Type without a body: the server refuses an empty JSON body.
    const hasBody = request.body !== undefined
    if (hasBody) headers['Content-Type'] = 'application/json'

    const controller = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, request.timeoutMs ?? timeoutMs)
    const forwardAbort = () => controller.abort()
    request.signal?.addEventListener('abort', forwardAbort, { once: true })

    let response: Response
    try {
      const doFetch = options.fetch ?? fetch
      response = await doFetch(baseUrl + path + queryString(request.query), {
        method,
        headers,
        body: hasBody ? JSON.stringify(request.body) : undefined,
        signal: controller.signal,
        credentials: 'same-origin',
      })
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason ?? error
      throw new ApiError(0, timedOut ? TIMEOUT_MESSAGE : NETWORK_ERROR_MESSAGE, timedOut ? 'TIMEOUT' : 'NETWORK_ERROR')
    } finally {
      clearTimeout(timer)
      request.signal?.removeEventListener('abort', forwardAbort)
    }

    const newCsrf = response.headers.get(CSRF_HEADER)
    if (newCsrf) storage.saveCsrfToken(newCsrf)

    if (request.file && response.ok) {
      const disposition = response.headers.get('Content-Disposition') ?? ''
      const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'download'
      return { success: true, data: { blob: await response.blob(), filename } as T }
    }
    const body = (await response.json().catch(() => null)) as (Envelope<T> & FailureBody) | null
    if (!response.ok) throw toApiError(response.status, body)
    return body ?? ({ success: true, data: undefined } as Envelope<T>)
  }

  function refreshSession(staleAccessToken: string | null): Promise<string | null> {
    refreshing ??= lock
      .run(async (waited) => {
        // Another tab may have refreshed while this one waited for the lock. Its write can reach
        // this tab a moment after the lock does (browsers sync localStorage between tabs
        // asynchronously), so a tab that waited gives it that moment.
        let current = storage.accessToken()
        if (waited && current === staleAccessToken) {
          await (options.storageSettled ?? accessTokenChanged)(STORAGE_SETTLE_MS)
          current = storage.accessToken()
        }
        if (current && current !== staleAccessToken) return current
        const refreshToken = storage.refreshToken()
        if (!refreshToken) return null
        try {
          const { data } = await send<Tokens>(REFRESH_PATH, { method: 'POST', body: { refreshToken } }, null)
          storage.saveTokens(data)
          return data.accessToken
        } catch (error) {
          // A refused refresh ends the session; a network failure leaves it for the next try.
          if (error instanceof ApiError && !error.isNetwork && error.status < 500) return null
          throw error
        }
      })
      .finally(() => {
        refreshing = null
      })
    return refreshing
  }

  async function request<T>(path: string, request: RequestOptions = {}): Promise<Envelope<T>> {
    const accessToken = storage.accessToken()
    try {
      return await send<T>(path, request, accessToken)
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      if (error.status === 403 && accessToken) {
        const state = blockedStateOf(error)
        if (state) options.onAccountBlocked?.(state)
        // A missing or stale CSRF token (stored by an older tab, or lost): fetch the session's
        // token once and try again.
        if (error.code === 'CSRF_INVALID' && request.method && UNSAFE_METHODS.has(request.method)) {
          const { data } = await send<{ csrfToken: string }>(CSRF_PATH, {}, accessToken)
          storage.saveCsrfToken(data.csrfToken)
          return send<T>(path, request, accessToken)
        }
      }
      const mayRefresh = error.status === 401 && accessToken && request.retryOnUnauthorized !== false && !NO_REFRESH_PATHS.has(path)
      if (!mayRefresh) throw error
      // A session ended by a suspension or deactivation: no refresh can bring it back.
      const blocked = blockedStateOf(error)
      const fresh = blocked ? null : await refreshSession(accessToken)
      if (!fresh) {
        storage.clear()
        options.onSessionEnded?.(blocked)
        throw error
      }
      return send<T>(path, request, fresh)
    }
  }

  return {
    request,
    get: (path, rest) => request(path, { ...rest, method: 'GET' }),
    post: (path, body, rest) => request(path, { ...rest, method: 'POST', body }),
    put: (path, body, rest) => request(path, { ...rest, method: 'PUT', body }),
    delete: (path, rest) => request(path, { ...rest, method: 'DELETE' }),
    download: async (path, rest) => (await request<DownloadedFile>(path, { timeoutMs: DOWNLOAD_TIMEOUT_MS, ...rest, method: 'GET', file: true })).data,
    refreshSession,
  }
}

/** A large export takes its time: the download may last this long. */
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000

/** Longest wait for another tab's fresh token to show up here; in practice a few milliseconds. */
const STORAGE_SETTLE_MS = 1_000

function accessTokenChanged(ms: number): Promise<void> {
  if (typeof window === 'undefined') return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      window.removeEventListener('storage', onStorage)
      resolve()
    }
    const onStorage = (event: StorageEvent) => {
      if (event.key === null || event.key === SESSION_KEYS.accessToken) done()
    }
    const timer = setTimeout(done, ms)
    window.addEventListener('storage', onStorage)
  })
}

function queryString(query: Query | undefined): string {
  if (!query) return ''
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value))
  }
  const text = params.toString()
  return text ? `?${text}` : ''
}

function toApiError(status: number, body: FailureBody | null): ApiError {
  const message = typeof body?.message === 'string' ? body.message : ''
  const code = failureCodeOf(body?.code)
  const fieldErrors = Array.isArray(body?.errors)
    ? (body.errors as unknown[]).filter(
        (item): item is FieldError => !!item && typeof (item as FieldError).field === 'string' && typeof (item as FieldError).message === 'string',
      )
    : []
  return new ApiError(status, message, code, fieldErrors)
}

type Listener = (blocked: BlockedState | null) => void
const sessionEndedListeners = new Set<Listener>()
const blockedListeners = new Set<(state: BlockedState) => void>()

/** The app's client on the browser's localStorage and Web Locks. */
export const api = createApiClient({
  storage: authStorage,
  language: currentLanguage,
  onSessionEnded: (blocked) => sessionEndedListeners.forEach((listener) => listener(blocked)),
  onAccountBlocked: (state) => blockedListeners.forEach((listener) => listener(state)),
})

export function onSessionEnded(listener: Listener): () => void {
  sessionEndedListeners.add(listener)
  return () => sessionEndedListeners.delete(listener)
}

export function onAccountBlocked(listener: (state: BlockedState) => void): () => void {
  blockedListeners.add(listener)
  return () => blockedListeners.delete(listener)
}
