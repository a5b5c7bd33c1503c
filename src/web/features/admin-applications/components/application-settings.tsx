import type { ReactNode } from 'react'
import type { Application } from '~shared/schemas/applications'
import { API_SCOPES, isApiScope } from '~shared/scopes'
import { useI18n } from '~web/lib/i18n'
import { formatDate } from '~web/lib/time'

/** How an application is registered, as the form sets it: each field's name and value. */
export function ApplicationSettings({ application }: { application: Application }) {
  const { t, tm } = useI18n()
  const none = <span className="text-muted">{t('applications.page.none')}</span>
  const uris = (list: string[]) => (list.length ? <UriList uris={list} /> : none)
  if (application.type === 'service') {
    return (
      <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-[max-content_1fr]">
        <Setting label={t('applications.fields.scopes')}>
          <ul className="space-y-1">
            {application.scopes.map((scope) => (
              <li key={scope}>
                <span className="font-mono text-xs">{scope}</span>
                {isApiScope(scope) ? <span className="text-muted"> · {tm(API_SCOPES[scope].allows)}</span> : null}
              </li>
            ))}
          </ul>
        </Setting>
        <Setting label={t('applications.columns.created')}>{formatDate(application.createdAt)}</Setting>
      </dl>
    )
  }
  return (
    <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-[max-content_1fr]">
      <Setting label={t('applications.fields.redirectUris')}>{uris(application.redirectUris)}</Setting>
      <Setting label={t('applications.fields.postLogoutRedirectUris')}>{uris(application.postLogoutRedirectUris)}</Setting>
      <Setting label={t('applications.fields.backchannelLogoutUri')}>{application.backchannelLogoutUri ? uris([application.backchannelLogoutUri]) : none}</Setting>
      <Setting label={t('applications.fields.allowedRoles')}>
        {application.allowedRoles.length ? application.allowedRoles.map((role) => t(`roles.${role}`)).join(', ') : t('applications.page.everyRole')}
      </Setting>
      <Setting label={t('applications.fields.firstParty')}>{application.firstParty ? t('applications.yes') : t('applications.no')}</Setting>
      <Setting label={t('applications.fields.deviceFlow')}>{application.deviceFlow ? t('applications.yes') : t('applications.no')}</Setting>
      <Setting label={t('applications.columns.created')}>{formatDate(application.createdAt)}</Setting>
    </dl>
  )
}

function Setting({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="font-medium text-muted">{label}</dt>
      <dd className="min-w-0">{children}</dd>
    </>
  )
}

function UriList({ uris }: { uris: string[] }) {
  return (
    <ul className="space-y-1">
      {uris.map((uri) => (
        <li key={uri} className="font-mono text-xs wrap-anywhere">
          {uri}
        </li>
      ))}
    </ul>
  )
}
