import { useI18n } from '~web/lib/i18n'
import { Button } from './button'

/** Previous / Next with "Page x of y" (with `hideSingle`, nothing when there is one page). */
export function Pagination({ page, pages: total, onChange, hideSingle }: { page: number; pages: number; onChange: (page: number) => void; hideSingle?: boolean }) {
  const { t } = useI18n()
  const pages = Math.max(1, total)
  if (hideSingle && pages <= 1) return null
  return (
    <nav aria-label={t('common.pagination')} className="flex flex-wrap items-center justify-between gap-3 pt-4">
      <Button variant="outline" size="sm" disabled={page <= 1} onClick={() => onChange(page - 1)}>
        {t('common.previous')}
      </Button>
      <span className="text-sm text-muted" aria-live="polite">
        {t('common.pageOf', { page, pages })}
      </span>
      <Button variant="outline" size="sm" disabled={page >= pages} onClick={() => onChange(page + 1)}>
        {t('common.next')}
      </Button>
    </nav>
  )
}
