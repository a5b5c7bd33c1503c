import type { Selectable, Transaction } from 'kysely'
import { normalizeEmail } from '~shared/email-address'
import type { AdminUser } from '~shared/schemas/lists'
import type { User } from '~shared/schemas/user'
import { runNamedStatement } from '~server/db/prepared'
import type { Database, Db, UsersTable } from '~server/db/types'

/**
 * Data access for users. Rows become the API's user object in `toUser` and nowhere else; the
 * columns selected for output never include the password hash.
 */

export const userColumns = [
  'id',
  'name',
  'email',
  'phone',
  'role',
  'status',
  'email_verified_at',
  'picture_id',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof UsersTable)[]

export type UserRecord = Pick<Selectable<UsersTable>, (typeof userColumns)[number]>

export function pictureUrl(pictureId: string | null): string | null {
  return pictureId ? `/api/users/pictures/${pictureId}` : null
}

export function toUser(row: UserRecord): User {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    role: row.role,
    status: row.status,
    emailVerified: row.email_verified_at !== null,
    profilePicture: pictureUrl(row.picture_id),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

/** The user as the admin sees it: also the last sign-in and whether two-factor is on. */
export const adminUserColumns = [...userColumns, 'last_sign_in_at', 'mfa_enabled'] as const satisfies readonly (keyof UsersTable)[]

export type AdminUserRecord = Pick<Selectable<UsersTable>, (typeof adminUserColumns)[number]>

export function toAdminUser(row: AdminUserRecord): AdminUser {
  return { ...toUser(row), lastSignInAt: row.last_sign_in_at ? row.last_sign_in_at.toISOString() : null, mfaEnabled: row.mfa_enabled }
}

export function findAdminUserById(db: Db, id: string): Promise<AdminUserRecord | undefined> {
  return db.selectFrom('users').select(adminUserColumns).where('id', '=', id).executeTakeFirst()
}

export function findUserById(db: Db, id: string): Promise<UserRecord | undefined> {
  return db.selectFrom('users').select(userColumns).where('id', '=', id).executeTakeFirst()
}

/** For sign-in only: the one query that reads the password hash (and whether a second step follows). */
export async function findCredentialsByEmail(db: Db, email: string) {
  const query = db
    .selectFrom('users')
    .select([...userColumns, 'mfa_enabled', 'password_hash'])
    .where('email', '=', normalizeEmail(email))
  return (await runNamedStatement(db, query.compile())).rows[0]
}

export function findUserByEmail(db: Db, email: string): Promise<UserRecord | undefined> {
  return db.selectFrom('users').select(userColumns).where('email', '=', normalizeEmail(email)).executeTakeFirst()
}

/** The user's row, locked until the caller's transaction ends. */
export function lockUserRow(trx: Transaction<Database>, id: string): Promise<UserRecord | undefined> {
  return trx.selectFrom('users').select(userColumns).where('id', '=', id).forUpdate().executeTakeFirst()
}

export async function countOtherActiveAdmins(db: Db, exceptId: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('role', '=', 'ADMIN')
    .where('status', '=', 'ACTIVE')
    .where('id', '!=', exceptId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function isEmailTaken(db: Db, email: string): Promise<boolean> {
  return (await db.selectFrom('users').select('id').where('email', '=', normalizeEmail(email)).executeTakeFirst()) !== undefined
}

export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
}
