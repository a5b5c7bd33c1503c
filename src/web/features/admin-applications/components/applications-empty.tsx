import AppWindow from 'lucide-react/icons/app-window'
import { useI18n } from '~web/lib/i18n'

/**
 * No application yet: what one is, what registering it gives, and where the guide for app teams
 * is. The guide is a file of the product's source (docs/sign-in-with-accounts.md), which the
 * server does not serve: it is named, not linked (decision 0015).
 */
export function ApplicationsEmpty() {
  const { t } = useI18n()
  return (
    <div className="flex flex-col items-center gap-2 px-4 py-10 text-center">
      <AppWindow aria-hidden className="size-8 text-muted" />
      <p className="font-medium">{t('applications.empty')}</p>
      <p className="max-w-prose text-sm text-muted">{t('applications.emptyWhat')}</p>
      <p className="max-w-prose text-sm text-muted">{t('applications.emptyNext')}</p>
      <p className="max-w-prose text-sm text-muted">
        {t('applications.emptyGuide')} <code className="font-mono text-fg">docs/sign-in-with-accounts.md</code>
      </p>
    </div>
  )
}
