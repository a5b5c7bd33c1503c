import { STRONG_PASSWORD, type SignedIn, type TestApp, uniqueEmail } from '../../support/test-app'
import type { Role, Status } from '~shared/constants'

/**
 * Accounts made straight in the database for tests that need many: one Argon2 hash per test app,
 * shared by all of them (hashing is most of the cost of `t.createUser`). No "Registered" entry is
 * written for these.
 */
const hashes = new WeakMap<TestApp, Promise<string>>()

export async function quickUser(
  t: TestApp,
  input: { role?: Role; status?: Status; name?: string; email?: string } = {},
): Promise<{ id: string; email: string; password: string }> {
  let hash = hashes.get(t)
  if (!hash) hashes.set(t, (hash = t.ctx.hasher.hash(STRONG_PASSWORD)))
  const now = t.clock.now()
  const email = (input.email ?? uniqueEmail(input.role?.toLowerCase() ?? 'client')).toLowerCase()
  const row = await t.ctx.db
    .insertInto('users')
    .values({
      name: input.name ?? 'Test User',
      email,
      password_hash: await hash,
      role: input.role ?? 'CLIENT',
      status: input.status ?? 'ACTIVE',
      email_verified_at: now,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { id: row.id, email, password: STRONG_PASSWORD }
}

export async function quickSignIn(t: TestApp, input: { role?: Role; name?: string } = {}): Promise<SignedIn> {
  const user = await quickUser(t, input)
  const response = await t.login(user.email, user.password)
  if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.body}`)
  const data = response.json().data
  return { ...user, accessToken: data.accessToken, refreshToken: data.refreshToken, csrfToken: data.csrfToken }
}
