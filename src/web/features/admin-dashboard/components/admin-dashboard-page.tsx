import type { ComponentType, SVGProps } from 'react'
import { Link } from 'react-router'
import RefreshCw from 'lucide-react/icons/refresh-cw'
import ScrollText from 'lucide-react/icons/scroll-text'
import Shield from 'lucide-react/icons/shield'
import User from 'lucide-react/icons/user'
import UserCheck from 'lucide-react/icons/user-check'
import UserX from 'lucide-react/icons/user-x'
import Users from 'lucide-react/icons/users'
import { RECENT_ACTIVITY_SHOWN } from '~shared/constants'
import type { AdminStats } from '~shared/schemas/lists'
import { ActivityItem } from '~web/components/activity/activity-item'
import { Button, buttonClass } from '~web/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '~web/components/ui/card'
import { PageHeader } from '~web/components/ui/page-header'
import { PageSpinner } from '~web/components/ui/spinner'
import { EmptyState, ErrorState } from '~web/components/ui/states'
import { paths } from '~web/config/paths'
import { useI18n } from '~web/lib/i18n'
import { useAdminStats } from '../api/get-admin-stats'

export function AdminDashboardPage() {
  const { t } = useI18n()
  const query = useAdminStats()
  return (
    <div>
      <PageHeader
        title={t('admin.title')}
        description={t('admin.description')}
        actions={
          <Button variant="outline" onClick={() => void query.refetch()} disabled={query.isFetching}>
            <RefreshCw aria-hidden className={query.isFetching ? 'size-4 animate-spin' : 'size-4'} />
            {t('common.refresh')}
          </Button>
        }
      />
      {query.isPending ? (
        <PageSpinner />
      ) : query.isError && !query.data ? (
        <ErrorState title={t('admin.errorTitle')} message={t('admin.error')} onRetry={() => void query.refetch()} />
      ) : (
        <Overview data={query.data} />
      )}
    </div>
  )
}

function Overview({ data }: { data: AdminStats }) {
  const { t } = useI18n()
  const { stats, recentActivities } = data
  const recent = recentActivities.slice(0, RECENT_ACTIVITY_SHOWN)
  return (
    <div className="space-y-6">
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-4">
        <StatCard label={t('admin.totalUsers')} value={stats.totalUsers} icon={Users} />
        <StatCard label={t('admin.activeUsers')} value={stats.byStatus.active} icon={UserCheck} />
        <StatCard label={t('admin.inactiveUsers')} value={stats.byStatus.inactive} icon={UserX} hint={t('admin.inactiveHint')} />
        <StatCard label={t('admin.administrators')} value={stats.byRole.admins} icon={Shield} />
      </div>
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Card>
          <CardHeader>
            <CardTitle>{t('admin.roleDistribution')}</CardTitle>
          </CardHeader>
          <CardContent>
            <dl className="space-y-2 text-sm">
              {(
                [
                  ['admin.admins', stats.byRole.admins],
                  ['admin.developers', stats.byRole.developers],
                  ['admin.moderators', stats.byRole.moderators],
                  ['admin.clients', stats.byRole.clients],
                ] as const
              ).map(([label, count]) => (
                <div key={label} className="flex justify-between gap-2 border-b border-line pb-2 last:border-0">
                  <dt className="text-muted">{t(label)}</dt>
                  <dd className="font-semibold">{count}</dd>
                </div>
              ))}
            </dl>
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>{t('admin.quickLinks')}</CardTitle>
          </CardHeader>
          <CardContent className="flex flex-col gap-2">
            <Link to={paths.adminUsers} className={buttonClass('outline', 'md', 'justify-start')}>
              <Users aria-hidden className="size-4" />
              {t('admin.manageUsers')}
            </Link>
            <Link to={paths.activityLogs} className={buttonClass('outline', 'md', 'justify-start')}>
              <ScrollText aria-hidden className="size-4" />
              {t('admin.viewLogs')}
            </Link>
            <Link to={paths.profile} className={buttonClass('outline', 'md', 'justify-start')}>
              <User aria-hidden className="size-4" />
              {t('admin.myProfile')}
            </Link>
          </CardContent>
        </Card>
        <Card className="lg:col-span-2">
          <CardHeader className="flex flex-row flex-wrap items-center justify-between gap-2">
            <CardTitle>{t('admin.recentActivity')}</CardTitle>
            {recentActivities.length > RECENT_ACTIVITY_SHOWN ? (
              <Link to={paths.activityLogs} className={buttonClass('link')}>
                {t('admin.viewAll')}
              </Link>
            ) : null}
          </CardHeader>
          <CardContent>
            {recent.length === 0 ? (
              <EmptyState title={t('admin.noRecent')} />
            ) : (
              <ul aria-label={t('admin.recentActivity')}>
                {recent.map((entry) => (
                  <ActivityItem key={entry.id} entry={entry} showUser />
                ))}
              </ul>
            )}
          </CardContent>
        </Card>
      </div>
    </div>
  )
}

function StatCard({ label, value, icon: Icon, hint }: { label: string; value: number; icon: ComponentType<SVGProps<SVGSVGElement>>; hint?: string }) {
  return (
    <Card>
      <CardContent className="flex items-center justify-between gap-3 pt-4 sm:pt-6">
        <div>
          <h2 className="text-sm font-medium text-muted">{label}</h2>
          <p className="text-3xl font-bold">{value}</p>
          {hint ? <p className="text-xs text-muted">{hint}</p> : null}
        </div>
        <Icon aria-hidden className="size-8 text-muted" />
      </CardContent>
    </Card>
  )
}
