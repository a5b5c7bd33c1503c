import type { ActivityFilter } from '~shared/constants'
import { ActivityListCard } from '~web/components/activity/activity-list-card'
import { PageHeader } from '~web/components/ui/page-header'
import { useI18n } from '~web/lib/i18n'
import { useListFilters } from '~web/lib/use-list-filters'
import { useMyActivity } from '../api/get-my-activity'

export function MyActivityPage() {
  const { t } = useI18n()
  const list = useListFilters<{ activity: ActivityFilter }>({ activity: 'all' })
  const query = useMyActivity({ page: list.page, search: list.debouncedSearch, activity: list.filters.activity })
  return (
    <div>
      <PageHeader title={t('activity.myTitle')} description={t('activity.myDescription')} />
      <ActivityListCard list={list} query={query} errorMessage={t('activity.myError')} />
    </div>
  )
}
