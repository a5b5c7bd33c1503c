import type { Kysely } from 'kysely'
import type { AdminStats } from '~shared/schemas/lists'
import type { Database } from '~server/db/types'
import { recentActivities, toActivityEntry } from './activity-list'
import { userTotals } from './counts'

/**
 * The admin dashboard's numbers, from the trigger-kept counters (no count of the users table).
 * `inactive` counts INACTIVE and SUSPENDED together, as the dashboard card does. Ten recent
 * entries: the dashboard shows five and offers "View All Activities" when there are more.
 */
const RECENT_ACTIVITIES = 10

export async function adminStats(db: Kysely<Database>): Promise<AdminStats> {
  const [totals, recent] = await Promise.all([userTotals(db), recentActivities(db, RECENT_ACTIVITIES)])
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
    },
    recentActivities: recent.map((row) => toActivityEntry(row, true)),
  }
}
