import type { ReactNode } from 'react'
import AlertTriangle from 'lucide-react/icons/triangle-alert'
import Inbox from 'lucide-react/icons/inbox'
import { useI18n } from '~web/lib/i18n'
import { Button } from './button'

/** A list with nothing in it. */
export function EmptyState({ title, hint }: { title: ReactNode; hint?: ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-2 px-4 py-10 text-center">
      <Inbox aria-hidden className="size-8 text-muted" />
      <p className="font-medium">{title}</p>
      {hint ? <p className="text-sm text-muted">{hint}</p> : null}
    </div>
  )
}

/** A load that failed, with a way to try again. */
export function ErrorState({ title, message, onRetry }: { title?: ReactNode; message: ReactNode; onRetry: () => void }) {
  const { t } = useI18n()
  return (
    <div
      role="alert"
      className="flex flex-col items-center gap-3 rounded-lg border border-red-300 bg-red-50 px-4 py-8 text-center text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100"
    >
      <AlertTriangle aria-hidden className="size-8" />
      {title ? <p className="text-lg font-semibold">{title}</p> : null}
      <p className="text-sm">{message}</p>
      <Button variant="outline" onClick={onRetry}>
        {t('common.retry')}
      </Button>
    </div>
  )
}
