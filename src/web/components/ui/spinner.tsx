import { useI18n } from '~web/lib/i18n'
import { cn } from '~web/lib/cn'

export function Spinner({ className, label }: { className?: string; label?: string }) {
  const { t } = useI18n()
  return (
    <span role="status" className={cn('inline-flex items-center gap-2 text-muted', className)}>
      <span aria-hidden className="size-5 animate-spin rounded-full border-2 border-current border-t-transparent" />
      <span className="sr-only">{label ?? t('app.loading')}</span>
    </span>
  )
}

export function PageSpinner() {
  return (
    <div className="flex min-h-[50vh] items-center justify-center">
      <Spinner />
    </div>
  )
}
