import { type ReactNode, useState } from 'react'
import { Badge, type BadgeTone } from '~web/components/ui/badge'
import { Card, CardContent } from '~web/components/ui/card'
import { ChoiceMenu } from '~web/components/ui/choice-menu'
import { SearchField, SelectField } from '~web/components/ui/filter-fields'
import { PageHeader } from '~web/components/ui/page-header'
import { EmptyState } from '~web/components/ui/states'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'

/** A column of the table: its header and what each row shows in it. */
export interface SampleColumn<Item> {
  header: string
  cell: (item: Item) => ReactNode
  /**
   * How the cell shows on a phone, where rows stack: 'title' (emphasised) and 'text' take the
   * whole width without their header; by default the header is shown beside the value.
   */
  layout?: 'title' | 'text'
}

interface SampleStatusPageProps<Item extends { id: string; status: Status }, Status extends string> {
  /** Where the page's texts live in the locale files: title, search, filter, empty, status and actions columns. */
  section: 'developer' | 'moderator'
  items: readonly Item[]
  statuses: readonly Status[]
  statusLabel: (status: Status) => string
  tones: Record<Status, BadgeTone>
  matches: (item: Item, needle: string) => boolean
  /** The columns in order; 'status' places the status badge. The actions column comes last. */
  columns: ReadonlyArray<SampleColumn<Item> | 'status'>
  changeStatusFor: (item: Item) => string
  statusChanged: (item: Item, statusLabel: string) => string
}

/**
 * The staff dashboards' sample data (by design: hard-coded lists, no server calls): a searchable,
 * filterable table whose rows' status can be changed from a menu; changes stay in the page.
 */
export function SampleStatusPage<Item extends { id: string; status: Status }, Status extends string>(props: SampleStatusPageProps<Item, Status>) {
  const { section, statuses, statusLabel, tones, columns } = props
  const { t } = useI18n()
  const [items, setItems] = useState(props.items)
  const [search, setSearch] = useState('')
  const [status, setStatus] = useState<Status | 'all'>('all')
  const needle = search.trim().toLowerCase()
  const shown = items.filter((item) => (status === 'all' || item.status === status) && props.matches(item, needle))
  const statusOptions = statuses.map((value) => ({ value, label: statusLabel(value) }))

  const change = (item: Item, next: Status) => {
    setItems((current) => current.map((candidate) => (candidate.id === item.id ? { ...candidate, status: next } : candidate)))
    notify.success(props.statusChanged(item, statusLabel(next)))
  }

  const statusHeader = t(`${section}.columns.status`)
  const headerOf = (column: SampleColumn<Item> | 'status') => (column === 'status' ? statusHeader : column.header)

  return (
    <div>
      <PageHeader title={t(`${section}.title`)} description={t(`${section}.description`)} />
      <Card>
        <CardContent className="space-y-4 pt-4 sm:pt-6">
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-[1fr_auto]">
            <SearchField label={t(`${section}.searchLabel`)} placeholder={t(`${section}.searchPlaceholder`)} value={search} onChange={setSearch} />
            <SelectField
              label={t(`${section}.statusFilter`)}
              value={status}
              onChange={setStatus}
              options={[{ value: 'all' as const, label: t(`${section}.allStatuses`) }, ...statusOptions]}
              className="sm:w-48"
            />
          </div>
          {shown.length === 0 ? (
            <EmptyState title={t(`${section}.empty`)} />
          ) : (
            <table className="w-full text-left text-sm">
              <thead className="hidden border-b border-line text-muted md:table-header-group">
                <tr>
                  {columns.map((column) => (
                    <th key={headerOf(column)} scope="col" className="px-3 py-2 font-medium">
                      {headerOf(column)}
                    </th>
                  ))}
                  <th scope="col" className="px-3 py-2 text-right font-medium">
                    {t(`${section}.columns.actions`)}
                  </th>
                </tr>
              </thead>
              <tbody className="block md:table-row-group">
                {shown.map((item) => (
                  <tr key={item.id} className="block space-y-2 border-b border-line py-3 last:border-0 md:table-row md:space-y-0 md:py-0">
                    {columns.map((column) =>
                      column !== 'status' && column.layout ? (
                        <td key={column.header} className={`block break-words md:table-cell md:px-3 md:py-3 ${column.layout === 'title' ? 'font-medium' : ''}`}>
                          {column.cell(item)}
                        </td>
                      ) : (
                        <td key={headerOf(column)} className="flex items-center justify-between gap-3 md:table-cell md:px-3 md:py-3">
                          <span className="text-muted md:hidden">{headerOf(column)}</span>
                          {column === 'status' ? <Badge tone={tones[item.status]}>{statusLabel(item.status)}</Badge> : <span>{column.cell(item)}</span>}
                        </td>
                      ),
                    )}
                    <td className="block md:table-cell md:px-3 md:py-3 md:text-right">
                      <ChoiceMenu
                        label={t(`${section}.changeStatus`)}
                        accessibleLabel={props.changeStatusFor(item)}
                        value={item.status}
                        options={statusOptions}
                        onChange={(next) => change(item, next)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </CardContent>
      </Card>
    </div>
  )
}
