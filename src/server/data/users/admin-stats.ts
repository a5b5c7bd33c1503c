import { sql } from 'kysely'
import type { AdminStats } from '~shared/schemas/lists'
import type { Db } from '~server/db/types'
import { recentActivities, toActivityEntry } from '~server/data/activity/activity-list'
import { userTotals } from '~server/data/counts'

/**
 * The admin dashboard's numbers, from the trigger-kept counters (no count of the users table).
 * `inactive` counts INACTIVE and SUSPENDED together, as the dashboard card does. Ten recent
 * entries: the dashboard shows five and offers "View All Activities" when there are more.
 */
const RECENT_ACTIVITIES = 10
export const SIGN_UP_DAYS = 30

const DAY_MS = 24 * 60 * 60 * 1000
const utcDay = (date: Date) => date.toISOString().slice(0, 10)

export async function adminStats(db: Db, now: Date): Promise<AdminStats> {
  const [totals, recent, signUps] = await Promise.all([userTotals(db), recentActivities(db, RECENT_ACTIVITIES), signUpsByDay(db, now)])
  return {
    stats: {
      totalUsers: totals.total,
      byStatus: {
        active: totals.byStatus.ACTIVE,
        inactive: totals.byStatus.INACTIVE + totals.byStatus.SUSPENDED,
        suspended: totals.byStatus.SUSPENDED,
      },
      byRole: {
        admins: totals.byRole.ADMIN,
        developers: totals.byRole.DEVELOPER,
        moderators: totals.byRole.MODERATOR,
        clients: totals.byRole.CLIENT,
      },
      unverified: totals.unverified,
      mfaEnabled: totals.mfaEnabled,
    },
    signUps,
    recentActivities: recent.map((row) => toActivityEntry(row, true)),
  }
}

/**
 * Accounts created on each of the last 30 days (UTC, today included), oldest first, that still
 * exist: sums over the slots of the trigger-kept `sign_ups_by_day` (migration 0017, decision
 * 0119), at most 30 × 8 rows read through its primary key. Days without a row are zeros.
 */
async function signUpsByDay(db: Db, now: Date): Promise<{ date: string; count: number }[]> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const from = new Date(today - (SIGN_UP_DAYS - 1) * DAY_MS)
  const rows = await db
    .selectFrom('sign_ups_by_day')
    .select([sql<string>`day::text`.as('day'), (eb) => eb.fn.sum<string>('n').as('n')])
    .where('day', '>=', sql<Date>`${utcDay(from)}::date`)
    .where('day', '<=', sql<Date>`${utcDay(new Date(today))}::date`)
    .groupBy('day')
    .execute()
  const byDay = new Map(rows.map((row) => [row.day, Number(row.n)]))
  return Array.from({ length: SIGN_UP_DAYS }, (_, index) => {
    const date = utcDay(new Date(from.getTime() + index * DAY_MS))
    return { date, count: byDay.get(date) ?? 0 }
  })
}
