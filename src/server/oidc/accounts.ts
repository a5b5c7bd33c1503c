import type { CompiledQuery, ExpressionBuilder, RawBuilder } from 'kysely'
import { isUuid } from '~server/data/users/users'
import { compiledOnce, runNamedStatement } from '~server/db/prepared'
import type { Database, Db } from '~server/db/types'
import { type AccountRow, engineRequest } from './engine-request'
import { roleAllowed } from './clients'

export const ACCOUNT_COLUMNS = ['id', 'name', 'email', 'email_verified_at', 'phone', 'role', 'status', 'picture_id', 'updated_at'] as const

/**
 * Whether the product session linked to provider session `uid` (a value, or a column's reference)
 * is live at `now`. The link is read first and the session by its key: written so, the plan is two
 * key lookups whatever the planner knows of the tables, where a join let it start from every live
 * session (decision 0406).
 */
export function productSessionLive(eb: ExpressionBuilder<Database, never>, uid: string | RawBuilder<string>, now: Date) {
  return eb.exists(
    eb
      .selectFrom('sessions as s')
      .select('s.id')
      .where('s.id', '=', eb.selectFrom('oidc_session_links as l').select('l.session_id').where('l.uid', '=', uid))
      .where('s.revoked_at', 'is', null)
      .where('s.expires_at', '>', now),
  )
}

/** The key an account read ahead is kept under in its engine request. */
export const accountKey = (sub: string, sessionUid: string | null | undefined) => `${sub} ${sessionUid ?? ''}`

export async function loadAccount(db: Db, now: Date, sub: string, sessionUid: string | undefined): Promise<AccountRow | undefined> {
  if (!isUuid(sub)) return undefined
  const readAhead = engineRequest.getStore()?.accounts
  if (readAhead?.has(accountKey(sub, sessionUid))) return readAhead.get(accountKey(sub, sessionUid))
  // By key: a named statement (src/server/db/prepared.ts), built once.
  accountQueries ??= {
    withSession: compiledOnce((sub: string, uid: string, now: Date) =>
      db
        .selectFrom('users as u')
        .select(ACCOUNT_COLUMNS.map((column) => `u.${column}` as const))
        .select((eb) => productSessionLive(eb as ExpressionBuilder<Database, never>, uid, now).as('session_live'))
        .where('u.id', '=', sub),
    ),
    alone: compiledOnce((sub: string) =>
      db
        .selectFrom('users as u')
        .select(ACCOUNT_COLUMNS.map((column) => `u.${column}` as const))
        .select((eb) => eb.val<boolean | null>(null).as('session_live'))
        .where('u.id', '=', sub),
    ),
  }
  const query = sessionUid ? accountQueries.withSession(sub, sessionUid, now) : accountQueries.alone(sub)
  const account = (await runNamedStatement(db, query)).rows[0] as AccountRow | undefined
  // Read once per engine request: an authorization's refusal check and its `findAccount` share it.
  readAhead?.set(accountKey(sub, sessionUid), account)
  return account
}

/** Built with the first database given: the statements are the same for every one. */
let accountQueries: { withSession: (sub: string, uid: string, now: Date) => CompiledQuery<unknown>; alone: (sub: string) => CompiledQuery<unknown> } | undefined

/** Whether the account may hold tokens of this app now. */
export function accountMayUseApp(account: Pick<AccountRow, 'status' | 'email_verified_at' | 'role'>, client: Parameters<typeof roleAllowed>[0]): boolean {
  return account.status === 'ACTIVE' && account.email_verified_at !== null && roleAllowed(client, account.role)
}
