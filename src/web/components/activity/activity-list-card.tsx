import type { ReactNode } from 'react'
import type { UseQueryResult } from '@tanstack/react-query'
import type { ActivityFilter } from '~shared/constants'
import type { ActivityList } from '~shared/schemas/lists'
import { Card, CardContent } from '~web/components/ui/card'
import { Pagination } from '~web/components/ui/pagination'
import { PageSpinner } from '~web/components/ui/spinner'
import { EmptyState, ErrorState } from '~web/components/ui/states'
import { useI18n } from '~web/lib/i18n'
import type { ListFilters } from '~web/lib/use-list-filters'
import { ActivityFilters } from './activity-filters'
import { ActivityItem } from './activity-item'

/** A filterable, paged activity list with its loading, empty and error states. */
export function ActivityListCard({
  list,
  query,
  showUser = false,
  errorTitle,
  errorMessage,
  emptyHint,
  more,
  actions,
}: {
  list: Pick<ListFilters<{ activity: ActivityFilter }>, 'search' | 'setSearch' | 'page' | 'setPage' | 'isFiltered'> & {
    filters: { activity: ActivityFilter }
    setFilter: (key: 'activity', value: ActivityFilter) => void
  }
  query: UseQueryResult<ActivityList>
  showUser?: boolean
  errorTitle?: string
  errorMessage: string
  emptyHint?: string
  more?: ReactNode
  actions?: ReactNode
}) {
  const { t } = useI18n()
  const activities = query.data?.activities ?? []
  return (
    <Card>
      <CardContent className="space-y-4 pt-4 sm:pt-6">
        <ActivityFilters
          search={list.search}
          onSearch={list.setSearch}
          activity={list.filters.activity}
          onActivity={(value) => list.setFilter('activity', value)}
          onRefresh={() => void query.refetch()}
          refreshing={query.isFetching}
          more={more}
          actions={actions}
        />
        {query.isPending ? (
          <PageSpinner />
        ) : query.isError && !query.data ? (
          <ErrorState title={errorTitle} message={errorMessage} onRetry={() => void query.refetch()} />
        ) : activities.length === 0 ? (
          <EmptyState title={t('activity.empty')} hint={list.isFiltered ? t('activity.emptyFiltered') : emptyHint} />
        ) : (
          <>
            <ul aria-label={t('activity.list')}>
              {activities.map((entry) => (
                <ActivityItem key={entry.id} entry={entry} showUser={showUser} />
              ))}
            </ul>
            <Pagination page={list.page} pages={query.data?.pagination.pages ?? 1} onChange={list.setPage} />
          </>
        )}
      </CardContent>
    </Card>
  )
}
