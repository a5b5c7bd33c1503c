import AppWindow from 'lucide-react/icons/app-window'
import { ListEmpty } from '~web/components/admin-list'
import { useI18n } from '~web/lib/i18n'

/**
 * No application yet: what one is, what registering it gives, and where the guide for app teams
 * is. The guide is a file of the product's source (docs/sign-in-with-accounts.md), which the
 * server does not serve: it is named, not linked (decision 0015).
 */
export function ApplicationsEmpty() {
  const { t } = useI18n()
  return (
    <ListEmpty
      icon={AppWindow}
      title={t('applications.empty')}
      lines={[t('applications.emptyWhat'), t('applications.emptyNext')]}
      guide={{ text: t('applications.emptyGuide'), file: 'docs/sign-in-with-accounts.md' }}
    />
  )
}
