import { useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import CircleHelp from 'lucide-react/icons/circle-help'
import UserX from 'lucide-react/icons/user-x'
import Ban from 'lucide-react/icons/ban'
import { Badge } from '~web/components/ui/badge'
import { buttonClass } from '~web/components/ui/button'
import { PublicHeader } from '~web/components/public-header'
import { ReturnToAppButton } from '~web/components/return-to-app'
import { Card, CardContent, CardDescription, CardHeader, CardTitle, PublicPage } from '~web/components/ui/card'
import { SUPPORT_EMAIL } from '~web/config/app'
import { paths } from '~web/config/paths'
import { recallInteraction } from '~web/lib/app-interaction'
import { useI18n } from '~web/lib/i18n'

/**
 * Why an account cannot be used: suspended, inactive, or (any other value) unknown. Reached from an
 * app's sign-in request, it also offers the way back to that app (which hears access_denied).
 */
export function AccountStatusPage() {
  const { t } = useI18n()
  const [interaction] = useState(recallInteraction)
  const [params] = useSearchParams()
  const status = params.get('status')?.toLowerCase()
  const email = params.get('email')
  const view =
    status === 'suspended'
      ? { title: t('accountStatus.suspendedTitle'), badge: t('statuses.SUSPENDED'), tone: 'red' as const, text: t('accountStatus.suspendedText'), Icon: Ban }
      : status === 'inactive'
        ? { title: t('accountStatus.inactiveTitle'), badge: t('statuses.INACTIVE'), tone: 'amber' as const, text: t('accountStatus.inactiveText'), Icon: UserX }
        : {
            title: t('accountStatus.unknownTitle'),
            badge: t('accountStatus.unknownBadge'),
            tone: 'gray' as const,
            text: t('accountStatus.unknownText'),
            Icon: CircleHelp,
          }

  return (
    <PublicPage width="lg" header={<PublicHeader />}>
      <Card>
        <CardHeader className="text-center">
          <view.Icon aria-hidden className="mx-auto mb-2 size-10 text-muted" />
          <CardTitle as="h1" className="text-2xl">
            {view.title}
          </CardTitle>
          <div>
            <Badge tone={view.tone}>{view.badge}</Badge>
          </div>
          <CardDescription>{view.text}</CardDescription>
        </CardHeader>
        <CardContent className="space-y-4">
          {email ? (
            <p className="text-center text-sm">
              <span className="text-muted">{t('accountStatus.account')}: </span>
              <span className="font-medium">{email}</span>
            </p>
          ) : null}
          <section aria-labelledby="support-title" className="rounded-md border border-line bg-subtle p-4 text-sm">
            <h2 id="support-title" className="font-semibold">
              {t('accountStatus.supportTitle')}
            </h2>
            <p className="mt-1 text-muted">{t('accountStatus.supportText')}</p>
            <dl className="mt-3 grid grid-cols-1 gap-x-3 gap-y-0.5 sm:grid-cols-[minmax(0,auto)_minmax(0,1fr)] sm:gap-y-1">
              <dt className="text-muted">{t('accountStatus.supportEmail')}</dt>
              <dd className="mb-1.5 sm:mb-0">
                <a href={`mailto:${SUPPORT_EMAIL}`} className="text-primary underline dark:text-blue-300">
                  {SUPPORT_EMAIL}
                </a>
              </dd>
              <dt className="text-muted">{t('accountStatus.supportHours')}</dt>
              <dd>{t('accountStatus.hours')}</dd>
            </dl>
          </section>
          {interaction ? <ReturnToAppButton uid={interaction.uid} app={interaction.app} variant="primary" className="w-full" /> : null}
          <div className="flex flex-col gap-2 sm:flex-row">
            <Link to={paths.login} className={buttonClass('primary', 'md', 'flex-1')}>
              {t('common.backToLogin')}
            </Link>
            <Link to={paths.home} className={buttonClass('outline', 'md', 'flex-1')}>
              {t('accountStatus.home')}
            </Link>
          </div>
        </CardContent>
      </Card>
    </PublicPage>
  )
}
