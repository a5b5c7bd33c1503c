import { ACTIVITY_FILTERS, type ActivityFilter } from '~shared/constants'
import { ActivityListCard } from '~web/components/activity/activity-list-card'
import { ExportButton } from '~web/components/export/export-button'
import { DateField } from '~web/components/ui/filter-fields'
import { PageHeader } from '~web/components/ui/page-header'
import { useI18n } from '~web/lib/i18n'
import { useSession } from '~web/lib/session'
import { useListFilters } from '~web/lib/use-list-filters'
import { exportActivityLogs, useActivityLogs } from '../api/get-activity-logs'

/** A calendar date as the date fields give it; anything else in the address is ignored. */
const isDate = (value: string) => /^\d{4}-\d{2}-\d{2}$/.test(value)

export function ActivityLogsPage() {
  const { t } = useI18n()
  const role = useSession().user?.role
  const list = useListFilters<{ activity: ActivityFilter; from: string; to: string }>({ activity: 'all', from: '', to: '' }, { activity: ACTIVITY_FILTERS })
  const from = isDate(list.filters.from) ? list.filters.from : ''
  const to = isDate(list.filters.to) ? list.filters.to : ''
  const filters = { search: list.debouncedSearch, activity: list.filters.activity, from, to }
  const query = useActivityLogs({ page: list.page, ...filters })
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
        more={
          <>
            <DateField label={t('exports.from')} value={from} max={to || undefined} onChange={(value) => list.setFilter('from', value)} className="sm:w-44" />
            <DateField label={t('exports.to')} value={to} min={from || undefined} onChange={(value) => list.setFilter('to', value)} className="sm:w-44" />
          </>
        }
        // The export is the admin's (the permission table); other staff read the log only.
        actions={role === 'ADMIN' ? <ExportButton load={() => exportActivityLogs(filters)} /> : null}
      />
    </div>
  )
}
