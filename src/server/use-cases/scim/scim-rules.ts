import { sql, type Transaction } from 'kysely'
import type { Status } from '~shared/constants'
import type { Database } from '~server/db/types'
import { ScimError, uniqueness } from '~server/scim/errors'
import { ACTIVE_ADMINS_LOCK, type CheckedActor, stillAllowedActor } from '~server/use-cases/users/admin-rules'

/**
 * What every SCIM change shares. The caller is a service application holding the `scim` scope
 * (checked by the route from its bearer credential), named on every activity entry it writes.
 */
export interface ScimAction {
  application: { id: string; name: string }
  ip: string
}

/**
 * Every SCIM write takes the lock of changes that may take an active admin away (decision 0105)
 * first: a directory's writes are few, and so they run one after the other with the admins' own
 * edits, each seeing the last (the last active ADMIN stays; no two calls give one userName twice).
 */
export async function lockForScimWrite(trx: Transaction<Database>): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${ACTIVE_ADMINS_LOCK})`.execute(trx)
}

/**
 * The application is still enabled and still a service application (an admin may have disabled it
 * since its credential was checked); the entry names it as it is named now.
 */
export function stillAllowedApplication(trx: Transaction<Database>, action: ScimAction): Promise<CheckedActor> {
  return stillAllowedActor(trx, { actorId: null, application: action.application })
}

export const lastAdmin = () => new ScimError(403, 'At least one active administrator must remain')

/** `active` as the account's status: false makes any account INACTIVE; true makes an INACTIVE one ACTIVE (a SUSPENDED one stays). */
export function statusFor(current: Status | undefined, active: boolean | undefined): Status {
  if (active === undefined) return current ?? 'ACTIVE'
  if (!active) return 'INACTIVE'
  return current === 'SUSPENDED' ? 'SUSPENDED' : 'ACTIVE'
}

/** A unique index stopped a write another call made first (two directories racing for one userName). */
export function uniqueViolation(error: unknown): ScimError | undefined {
  if ((error as { code?: unknown }).code !== '23505') return undefined
  const constraint = String((error as { constraint?: unknown }).constraint ?? '')
  return uniqueness(constraint.includes('email') ? 'Another account has that address' : 'Another account has that userName')
}
