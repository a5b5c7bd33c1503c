import type { LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import type { SignedIn, TestApp } from '../../support/test-app'

/** Calls as a signed-in user: bearer token, and the CSRF token on unsafe methods. */
export function as(t: TestApp, user: SignedIn) {
  const call = (method: string, url: string, body?: unknown): Promise<LightMyRequestResponse> =>
    t.request(method, url, {
      token: user.accessToken,
      ...(method === 'GET' ? {} : { csrf: user.csrfToken }),
      ...(body !== undefined ? { body } : {}),
    })
  return {
    get: (url: string) => call('GET', url),
    put: (url: string, body: unknown) => call('PUT', url, body),
    post: (url: string, body: unknown) => call('POST', url, body),
    delete: (url: string) => call('DELETE', url),
  }
}

/** Reads a row count straight from the database. */
export async function countWhere(t: TestApp, table: 'activities' | 'users' | 'pictures' | 'sessions' | 'passkeys', where: Record<string, unknown>): Promise<number> {
  let query = t.ctx.db.selectFrom(table as 'activities').select((eb) => eb.fn.countAll<string>().as('n'))
  for (const [column, value] of Object.entries(where)) {
    query = value === null ? query.where(column as 'id', 'is', null) : query.where(column as 'id', '=', value as string)
  }
  return Number((await query.executeTakeFirstOrThrow()).n)
}

/** A failure answer in the API's envelope, with its status, code and message. */
export function expectFailure(response: LightMyRequestResponse, status: number, message?: string, code?: string) {
  expect(response.statusCode, response.body).toBe(status)
  const body = response.json()
  expect(body.success).toBe(false)
  if (message !== undefined) expect(body.message).toBe(message)
  if (code !== undefined) expect(body.code).toBe(code)
  expect(typeof body.requestId).toBe('string')
  return body as { message: string; code: string; errors?: { field: string; message: string }[] }
}

export function expectSuccess(response: LightMyRequestResponse, status = 200) {
  expect(response.statusCode, response.body).toBe(status)
  const body = response.json()
  expect(body.success).toBe(true)
  return body as { message?: string; data: any }
}
