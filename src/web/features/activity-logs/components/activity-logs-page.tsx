import type { ActivityFilter } from '~shared/constants'
import { ActivityListCard } from '~web/components/activity/activity-list-card'
import { PageHeader } from '~web/components/ui/page-header'
import { useI18n } from '~web/lib/i18n'
import { useListFilters } from '~web/lib/use-list-filters'
import { useActivityLogs } from '../api/get-activity-logs'

export function ActivityLogsPage() {
  const { t } = useI18n()
  const list = useListFilters<{ activity: ActivityFilter }>({ activity: 'all' })
  const query = useActivityLogs({ page: list.page, search: list.debouncedSearch, activity: list.filters.activity })
  return (
    <div>
      <PageHeader title={t('activity.logsTitle')} description={t('activity.logsDescription')} />
      <ActivityListCard
        list={list}
        query={query}
        showUser
        errorTitle={t('activity.logsErrorTitle')}
        errorMessage={t('activity.logsError')}
        emptyHint={t('activity.emptyNone')}
      />
    </div>
  )
}
