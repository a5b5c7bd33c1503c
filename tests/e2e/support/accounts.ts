import crypto from 'node:crypto'
import type { Role, Status } from '~shared/constants'
import type { User } from '~shared/schemas/user'
import { linkTo } from '../../support/mailbox'
import type { RunningServer } from './server'

/**
 * Accounts for tests whose subject is not how an account comes to be: made through the API the
 * way a person would (register, the e-mailed verification link), then given their role and
 * status by the administrator. Faster than the UI, and the data is real.
 */

export interface Account {
  id: string
  name: string
  email: string
  password: string
  role: Role
  status: Status
}

export interface SignedInSession {
  accessToken: string
  refreshToken: string
  csrfToken: string
  user: User
}

export interface ApiAnswer<T = unknown> {
  status: number
  body: { success: boolean; message?: string; data: T; code?: string }
}

/** A password the product accepts for any address these helpers make. */
export const GOOD_PASSWORD = 'Amber-Falcon-73!'

/** An address no other test uses. */
export function uniqueEmail(label: string): string {
  return `${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${crypto.randomBytes(4).toString('hex')}@example.com`
}

export async function callApi<T = unknown>(
  server: Pick<RunningServer, 'url'>,
  method: string,
  path: string,
  options: { body?: unknown; session?: Pick<SignedInSession, 'accessToken' | 'csrfToken'> } = {},
): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (options.body !== undefined) headers['Content-Type'] = 'application/json'
  if (options.session) {
    headers.Authorization = `Bearer ${options.session.accessToken}`
    if (method !== 'GET') headers['X-CSRF-Token'] = options.session.csrfToken
  }
  const response = await fetch(`${server.url}/api${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  })
  return { status: response.status, body: (await response.json()) as ApiAnswer<T>['body'] }
}

export async function signInThroughApi(server: Pick<RunningServer, 'url'>, email: string, password: string): Promise<SignedInSession> {
  const answer = await callApi<SignedInSession>(server, 'POST', '/auth/login', { body: { email, password } })
  if (answer.status !== 200) throw new Error(`sign-in of ${email} failed: ${answer.status} ${answer.body.message}`)
  return answer.body.data
}

export interface NewAccount {
  name?: string
  email?: string
  password?: string
  phone?: string
  role?: Role
  status?: Status
  /** false: registered only, the verification link left unused. */
  verified?: boolean
}

export function accountsOn(server: RunningServer) {
  let admin: SignedInSession | null = null
  const created: Account[] = []

  /** A call as the administrator, signing in (again) when needed. */
  async function asAdmin<T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> {
    admin ??= await signInThroughApi(server, server.admin.email, server.admin.password)
    let answer = await callApi<T>(server, method, path, { body, session: admin })
    if (answer.status === 401) {
      admin = await signInThroughApi(server, server.admin.email, server.admin.password)
      answer = await callApi<T>(server, method, path, { body, session: admin })
    }
    return answer
  }

  async function findUser(email: string): Promise<User> {
    const answer = await asAdmin<{ users: User[] }>('GET', `/admin/users?search=${encodeURIComponent(email)}`)
    const user = answer.body.data.users.find((candidate) => candidate.email === email.toLowerCase())
    if (!user) throw new Error(`no user ${email}`)
    return user
  }

  async function update(account: Account, changes: Partial<Pick<User, 'name' | 'email' | 'role' | 'status'>>): Promise<Account> {
    const answer = await asAdmin<User>('PUT', `/admin/users/${account.id}`, changes)
    if (answer.status !== 200) throw new Error(`updating ${account.email} failed: ${answer.status} ${answer.body.message}`)
    Object.assign(account, { name: answer.body.data.name, email: answer.body.data.email, role: answer.body.data.role, status: answer.body.data.status })
    return account
  }

  return {
    asAdmin,
    findUser,
    update,

    /** Registers, verifies by the e-mailed link, then sets role and status as the administrator. */
    async create(options: NewAccount = {}): Promise<Account> {
      const role = options.role ?? 'CLIENT'
      const email = (options.email ?? uniqueEmail(role)).toLowerCase()
      const password = options.password ?? GOOD_PASSWORD
      const name = options.name ?? `${role.charAt(0)}${role.slice(1).toLowerCase()} ${crypto.randomBytes(2).toString('hex')}`
      const registered = await callApi(server, 'POST', '/auth/register', {
        body: { name, email, phone: options.phone ?? null, password, confirmPassword: password },
      })
      if (registered.status !== 201) throw new Error(`registering ${email} failed: ${registered.status} ${registered.body.message}`)
      const mail = await server.mail.next(email, 'Verify your email address - Accounts')
      if (options.verified !== false) {
        const token = linkTo(mail, '/verify-email').searchParams.get('token')
        const verified = await callApi(server, 'GET', `/auth/verify-email/${token}`)
        if (verified.status !== 200) throw new Error(`verifying ${email} failed: ${verified.status} ${verified.body.message}`)
      }
      const user = await findUser(email)
      const account: Account = { id: user.id, name, email, password, role: user.role, status: user.status }
      created.push(account)
      const changes: Partial<Pick<User, 'role' | 'status'>> = {}
      if (role !== user.role) changes.role = role
      if (options.status && options.status !== user.status) changes.status = options.status
      if (Object.keys(changes).length > 0) await update(account, changes)
      return account
    },

    /** Deletes every account these helpers made that still exists (made inactive first). */
    async removeAll(): Promise<void> {
      for (const account of created.splice(0)) {
        const current = await asAdmin<User>('GET', `/admin/users/${account.id}`)
        if (current.status === 404) continue
        if (current.body.data.role === 'ADMIN') await asAdmin('PUT', `/admin/users/${account.id}`, { role: 'CLIENT' })
        if (current.body.data.status !== 'INACTIVE') await asAdmin('PUT', `/admin/users/${account.id}`, { status: 'INACTIVE' })
        await asAdmin('DELETE', `/admin/users/${account.id}`)
      }
    },
  }
}

export type Accounts = ReturnType<typeof accountsOn>
