import { sql } from 'kysely'
import type { Role } from '~shared/constants'
import { passwordPolicyProblem } from '~shared/password-policy'
import { normalizeEmail } from '~shared/email-address'
import { emailField, newPasswordField } from '~shared/schemas/fields'
import { generatePassword } from '~server/auth/generated-password'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import type { Db } from '~server/db/types'
import { findUserByEmail } from '~server/data/users/users'
import { ExplainedError } from '~server/explained-error'
import { ACTIVE_ADMINS_LOCK } from './admin-rules'

/**
 * Accounts made by the operator rather than by registration: the first admin at start-up and
 * `npm run user:create`. The account ends up with the role, ACTIVE and verified; an existing
 * account keeps its password unless a new one is given.
 */
export interface EnsureAccountInput {
  email: string
  role: Role
  name?: string
  password?: string
  /** Why the entry exists, for the activity log. */
  reason: string
}

export interface EnsureAccountResult {
  created: boolean
  /** Set when a password was generated: show it once, it is not stored anywhere readable. */
  generatedPassword?: string
}

export class AccountInputError extends ExplainedError {}

/** The operator's e-mail address, checked with its password (when one is given) against the rules registration follows. */
function checkedInput(input: { email: string; password?: string | undefined }): string {
  const parsed = emailField.safeParse(input.email.trim())
  if (!parsed.success) throw new AccountInputError(`"${input.email}" is not a valid email address.`)
  const email = parsed.data
  if (input.password !== undefined) {
    const parsed = newPasswordField.safeParse(input.password)
    const problem = parsed.success ? passwordPolicyProblem(input.password, email) : parsed.error.issues[0]?.message
    if (problem) throw new AccountInputError(`The password for ${email} is refused: ${problem}`)
  }
  return email
}

export async function ensureAccount(ctx: AppContext, input: EnsureAccountInput): Promise<EnsureAccountResult> {
  const email = checkedInput(input)
  const generatedPassword = input.password === undefined && !(await findUserByEmail(ctx.db, email)) ? generatePassword() : undefined
  const password = input.password ?? generatedPassword
  const passwordHash = password ? await ctx.hasher.hash(password) : undefined
  const outcome = await writeAccount(ctx, email, input, passwordHash)
  return { created: outcome === 'created', ...(generatedPassword ? { generatedPassword } : {}) }
}

/**
 * The account's row and its activity entry, in one transaction. Operator-made accounts are written
 * one at a time, under the lock of changes to the active admins: two instances starting together
 * on one database make the first administrator once (the second finds it), and neither trips
 * over the other's row. With `unlessAnAdminIsActive`, nothing is written when one is (null).
 */
async function writeAccount(
  ctx: AppContext,
  email: string,
  input: EnsureAccountInput,
  passwordHash: string | undefined,
  unlessAnAdminIsActive = false,
): Promise<'created' | 'updated' | null> {
  return commitChange(ctx, async (c) => {
    await sql`SELECT pg_advisory_xact_lock(${ACTIVE_ADMINS_LOCK})`.execute(c.trx)
    if (unlessAnAdminIsActive && (await anActiveAdmin(c.trx))) return null
    const existing = await findUserByEmail(c.trx, email)
    if (existing) {
      await c.trx
        .updateTable('users')
        .set((eb) => ({
          role: input.role,
          status: 'ACTIVE',
          email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(c.now)),
          updated_at: c.now,
          ...(passwordHash ? { password_hash: passwordHash } : {}),
        }))
        .where('id', '=', existing.id)
        .execute()
      await c.record({ userId: existing.id, kind: 'updated', activity: `Updated account to ${input.role}`, details: input.reason, ip: null })
      if (existing.role !== input.role) await c.emitUser('user.role_changed', existing.id, { from: existing.role, to: input.role })
      if (existing.status !== 'ACTIVE') await c.emitUser('user.status_changed', existing.id, { from: existing.status, to: 'ACTIVE' })
      return 'updated'
    }
    const created = await c.trx
      .insertInto('users')
      .values({
        name: input.name ?? defaultName(input.role),
        email,
        password_hash: passwordHash!,
        role: input.role,
        status: 'ACTIVE',
        email_verified_at: c.now,
        created_at: c.now,
        updated_at: c.now,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    await c.record({ userId: created.id, kind: 'registered', activity: 'Registered', details: input.reason, ip: null })
    await c.emitUser('user.created', created.id)
    return 'created'
  })
}

/**
 * An administrator who can sign in: ACTIVE and with a verified address (only those get tokens). An
 * import may bring an ACTIVE admin whose address was never verified: the first start still makes
 * and prints one who can act (decision 0554).
 */
function anActiveAdmin(db: Db): Promise<{ id: string } | undefined> {
  return db
    .selectFrom('users')
    .select('id')
    .where('role', '=', 'ADMIN')
    .where('status', '=', 'ACTIVE')
    .where('email_verified_at', 'is not', null)
    .limit(1)
    .executeTakeFirst()
}

function defaultName(role: Role): string {
  return role === 'ADMIN' ? 'Administrator' : role.charAt(0) + role.slice(1).toLowerCase()
}

/**
 * ADMIN_EMAIL and ADMIN_PASSWORD, checked before the server starts anything: both or neither, and
 * what `ensureFirstAdmin` would refuse in them refused now, before the port and the database.
 */
export function checkFirstAdminSettings(config: { adminEmail?: string | undefined; adminPassword?: string | undefined }): void {
  const { adminEmail, adminPassword } = config
  if (!adminEmail !== !adminPassword) {
    throw new AccountInputError(
      `ADMIN_EMAIL and ADMIN_PASSWORD go together, and only ${adminEmail ? 'ADMIN_EMAIL' : 'ADMIN_PASSWORD'} is set. Set both, or neither (then the first start creates admin@localhost with a generated password, and says where it is).`,
    )
  }
  if (adminEmail) checkedInput({ email: adminEmail, password: adminPassword })
}

/**
 * Start-up: ADMIN_EMAIL/ADMIN_PASSWORD make sure of that admin (never lowering anything);
 * without them, and with no active admin at all, admin@localhost is created with a random
 * password, or given a new one if it exists, and the password is returned to be printed once.
 * `keep` is given a generated password before the account is written (to put it in a file): when
 * it throws, nothing is created.
 */
export async function ensureFirstAdmin(
  ctx: AppContext,
  { keep }: { keep?: (admin: { email: string; password: string }) => void } = {},
): Promise<{ email: string; password?: string } | null> {
  const { adminEmail, adminPassword } = ctx.config
  if (adminEmail && adminPassword) {
    const existing = await findUserByEmail(ctx.db, adminEmail)
    const alreadyFine = existing?.role === 'ADMIN' && existing.status === 'ACTIVE' && existing.email_verified_at
    if (!alreadyFine) {
      await ensureAccount(ctx, {
        email: adminEmail,
        role: 'ADMIN',
        ...(existing ? {} : { password: adminPassword }),
        reason: 'Administrator from ADMIN_EMAIL at start-up',
      })
    }
    return { email: normalizeEmail(adminEmail) }
  }
  if (await anActiveAdmin(ctx.db)) return null
  const email = 'admin@localhost'
  const password = generatePassword()
  keep?.({ email, password })
  const written = await writeAccount(ctx, email, { email, role: 'ADMIN', reason: 'First administrator, created at start-up' }, await ctx.hasher.hash(password), true)
  return written ? { email, password } : null
}
