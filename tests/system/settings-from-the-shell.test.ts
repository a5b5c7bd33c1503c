import { afterEach, expect, it } from 'vitest'
import { call, dataFolders, startServer, stopServer, withoutSettings } from './server-process'
import { SETTING_NAMES } from '~server/config/env'

/**
 * The servers that the browser tests and the benchmarks start take this process's environment, so
 * that what the machine needs reaches them; the product's own settings left in the shell that runs
 * `npm test` (an APP_NAME or an ACCESS_TOKEN_TTL from trying the product) do not: every test says
 * the settings it means. A short ACCESS_TOKEN_TTL in the shell failed the browser suites.
 */
const folder = dataFolders()
const ADMIN = { email: 'shell.admin@example.com', password: 'Steady-Lantern-64!' }
const saved = { ...process.env }
afterEach(() => {
  for (const name of SETTING_NAMES) delete process.env[name]
  Object.assign(process.env, saved)
})

it('a server started with this environment ignores the settings the shell has, and keeps the rest', async () => {
  Object.assign(process.env, { ACCESS_TOKEN_TTL: '1', APP_NAME: 'Shell Name', REFRESH_TOKEN_TTL: '1', REFRESH_TOKEN_MAX_AGE: '1' })
  const server = await startServer({ DATA_DIR: folder('prepared'), ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password }, { inheritEnv: true })
  try {
    const signIn = await call(server, 'POST', '/api/auth/login', ADMIN)
    expect(signIn.status).toBe(200)
    const token = (signIn.body as { data: { accessToken: string } }).data.accessToken
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iat: number; exp: number }
    expect(claims.exp - claims.iat).toBe(900)
  } finally {
    await stopServer(server)
  }
  expect(SETTING_NAMES).toEqual(expect.arrayContaining(['APP_NAME', 'ACCESS_TOKEN_TTL', 'DATABASE_URL', 'RATE_LIMIT', 'NODE_ENV']))
  expect(withoutSettings({ PATH: '/bin', APP_NAME: 'Shell Name', TZ: 'UTC' })).toEqual({ PATH: '/bin', TZ: 'UTC' })
})
