import { CompiledQuery } from 'kysely'
import type { Role, Status } from '~shared/constants'
import type { Db } from '~server/db/types'

/**
 * Totals for lists and statistics without counting big tables in a request:
 *
 * - users by role and status, and activity entries by kind, come from counter tables kept exact
 *   by triggers (migration 0002);
 * - a total under a search (or for one user's entries) is counted exactly up to a cap; past the
 *   cap the answer is the planner's estimate, which is what a "page x of y" needs.
 */

/** Matches counted exactly before the planner's estimate is used instead. */
export const EXACT_COUNT_CAP = 1_000

export interface UserTotals {
  total: number
  byRole: Record<Role, number>
  byStatus: Record<Status, number>
  /** Accounts whose address is not verified. */
  unverified: number
  /** Accounts with two-factor on. */
  mfaEnabled: number
}

export async function userTotals(db: Db): Promise<UserTotals> {
  const rows = await db
    .selectFrom('user_counts')
    .select(['role', 'status', 'verified', 'mfa', (eb) => eb.fn.sum<string>('n').as('n')])
    .groupBy(['role', 'status', 'verified', 'mfa'])
    .execute()
  const totals: UserTotals = {
    total: 0,
    byRole: { ADMIN: 0, DEVELOPER: 0, MODERATOR: 0, CLIENT: 0 },
    byStatus: { ACTIVE: 0, INACTIVE: 0, SUSPENDED: 0 },
    unverified: 0,
    mfaEnabled: 0,
  }
  for (const row of rows) {
    const n = Number(row.n)
    totals.total += n
    totals.byRole[row.role as Role] += n
    totals.byStatus[row.status as Status] += n
    if (!row.verified) totals.unverified += n
    if (row.mfa) totals.mfaEnabled += n
  }
  return totals
}

export async function countUsers(db: Db, filter: { role?: Role | undefined; status?: Status | undefined }): Promise<number> {
  let query = db.selectFrom('user_counts').select((eb) => eb.fn.sum<string>('n').as('n'))
  if (filter.role) query = query.where('role', '=', filter.role)
  if (filter.status) query = query.where('status', '=', filter.status)
  const row = await query.executeTakeFirst()
  return Number(row?.n ?? 0)
}

export async function countActivities(db: Db, kind: string | undefined): Promise<number> {
  let query = db.selectFrom('activity_counts').select((eb) => eb.fn.sum<string>('n').as('n'))
  if (kind) query = query.where('kind', '=', kind)
  const row = await query.executeTakeFirst()
  return Number(row?.n ?? 0)
}

/**
 * The number of rows `matches` returns, exact up to the cap. Beyond it, the planner's estimate
 * for `estimate` (the same condition, written so the planner can judge it; by default `matches`
 * itself), never less than cap + 1.
 */
export async function cappedCount(db: Db, matches: CompiledQuery, estimate: CompiledQuery = matches, cap = EXACT_COUNT_CAP): Promise<number> {
  const counted = await db.executeQuery<{ n: string }>(rawQuery(`SELECT count(*) AS n FROM (${matches.sql} LIMIT ${cap + 1}) AS capped`, matches.parameters))
  const n = Number(counted.rows[0]?.n ?? 0)
  if (n <= cap) return n
  return Math.max(cap + 1, await plannerEstimate(db, estimate))
}

/** The planner's estimate of the rows a query returns (EXPLAIN without running it). */
export async function plannerEstimate(db: Db, query: CompiledQuery): Promise<number> {
  const result = await db.executeQuery<{ 'QUERY PLAN': unknown }>(rawQuery(`EXPLAIN (FORMAT JSON) ${query.sql}`, query.parameters))
  const raw = result.rows[0]?.['QUERY PLAN']
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [{ Plan: { 'Plan Rows': number } }]
  return Math.round(plan[0].Plan['Plan Rows'])
}

function rawQuery(text: string, parameters: readonly unknown[]): CompiledQuery {
  return CompiledQuery.raw(text, [...parameters])
}
