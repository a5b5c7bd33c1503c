import type { ReactNode } from 'react'
import RefreshCw from 'lucide-react/icons/refresh-cw'
import { ACTIVITY_FILTERS, type ActivityFilter } from '~shared/constants'
import { Button } from '~web/components/ui/button'
import { SearchField, SelectField } from '~web/components/ui/filter-fields'
import { useI18n } from '~web/lib/i18n'

/** Search box, activity-type filter and Refresh, shared by My Activity and Activity Logs. */
export function ActivityFilters({
  search,
  onSearch,
  activity,
  onActivity,
  onRefresh,
  refreshing,
  more,
  actions,
}: {
  search: string
  onSearch: (value: string) => void
  activity: ActivityFilter
  onActivity: (value: ActivityFilter) => void
  onRefresh: () => void
  refreshing?: boolean
  /** More filters, after the activity type (the staff log's date range). */
  more?: ReactNode
  /** More buttons, after Refresh (Export CSV). */
  actions?: ReactNode
}) {
  const { t } = useI18n()
  return (
    <div className="flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-end">
      <SearchField
        label={t('activity.searchLabel')}
        placeholder={t('activity.searchPlaceholder')}
        value={search}
        onChange={onSearch}
        className="flex-1 sm:flex-[1_1_16rem]"
      />
      <SelectField
        label={t('activity.filterLabel')}
        value={activity}
        onChange={onActivity}
        options={ACTIVITY_FILTERS.map((value) => ({ value, label: t(`activity.filters.${value}`) }))}
        className="sm:w-56"
      />
      {more}
      <Button variant="outline" onClick={onRefresh} disabled={refreshing}>
        <RefreshCw aria-hidden className={refreshing ? 'size-4 animate-spin' : 'size-4'} />
        {t('common.refresh')}
      </Button>
      {actions}
    </div>
  )
}
