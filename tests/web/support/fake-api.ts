import { vi } from 'vitest'

/**
 * A stand-in for the server behind `fetch`: routes answered by handlers, and every call recorded
 * (method, path, query, headers, body) so tests can check what the app sent.
 */

export interface FakeRequest {
  method: string
  path: string
  params: Record<string, string>
  query: URLSearchParams
  headers: Headers
  body: unknown
  rawBody: string | undefined
}

export interface FakeResponse {
  status?: number
  body?: unknown
  headers?: Record<string, string>
}

type Handler = (request: FakeRequest) => FakeResponse | Promise<FakeResponse>

export interface FakeApi {
  on(route: string, handler: Handler | FakeResponse): FakeApi
  calls: FakeRequest[]
  callsTo(route: string): FakeRequest[]
}

/** `{ success: true, data }` as the server wraps answers. */
export const ok = (data?: unknown, message?: string): FakeResponse => ({ status: 200, body: { success: true, ...(message ? { message } : {}), data } })

/** `{ success: false, message, code, errors? }` with a status. */
export const fail = (status: number, message: string, extra: { code?: string; errors?: { field: string; message: string }[] } = {}): FakeResponse => ({
  status,
  body: { success: false, message, code: extra.code ?? 'ERROR', ...(extra.errors ? { errors: extra.errors } : {}), requestId: 'test' },
})

function matcher(route: string) {
  const [method, pattern] = route.split(' ') as [string, string]
  const names: string[] = []
  const regex = new RegExp(`^${pattern.replace(/:(\w+)/g, (_whole, name: string) => (names.push(name), '([^/]+)'))}$`)
  return (request: { method: string; path: string }) => {
    if (request.method !== method) return null
    const match = regex.exec(request.path)
    if (!match) return null
    return Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1] ?? '')]))
  }
}

export function installFakeApi(): FakeApi {
  const routes: Array<{ route: string; match: ReturnType<typeof matcher>; handler: Handler }> = []
  const calls: FakeRequest[] = []

  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost')
    const method = (init.method ?? 'GET').toUpperCase()
    const path = url.pathname.replace(/^\/api/, '')
    const rawBody = typeof init.body === 'string' ? init.body : undefined
    const request: FakeRequest = {
      method,
      path,
      params: {},
      query: url.searchParams,
      headers: new Headers(init.headers),
      body: rawBody ? JSON.parse(rawBody) : undefined,
      rawBody,
    }
    calls.push(request)
    if (init.signal?.aborted) throw new DOMException('Aborted', 'AbortError')
    let handler: Handler | undefined
    for (const candidate of routes) {
      const params = candidate.match(request)
      if (params) {
        request.params = params
        handler = candidate.handler
        break
      }
    }
    const answer = handler ? await handler(request) : fail(404, 'Not found', { code: 'NOT_FOUND' })
    const status = answer.status ?? 200
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status,
      headers: { 'Content-Type': 'application/json', ...answer.headers },
    })
  })
  vi.stubGlobal('fetch', fetchMock)

  const api: FakeApi = {
    on(route, handler) {
      routes.unshift({ route, match: matcher(route), handler: typeof handler === 'function' ? handler : () => handler })
      return api
    },
    calls,
    callsTo(route) {
      const match = matcher(route)
      return calls.filter((call) => match(call) !== null)
    },
  }
  return api
}

/** The calls besides the look-ups of identity providers that the sign-in and registration pages make on every visit. */
export const besidesProviderLookups = (api: FakeApi): FakeRequest[] => api.calls.filter((call) => !call.path.startsWith('/auth/identity-providers'))
