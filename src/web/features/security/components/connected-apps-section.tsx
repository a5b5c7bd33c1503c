import AppWindow from 'lucide-react/icons/app-window'
import { useRef, useState } from 'react'
import type { ConnectedApp } from '~shared/schemas/connected-apps'
import { ScopeList } from '~web/components/scope-list'
import { Button } from '~web/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~web/components/ui/card'
import { Dialog } from '~web/components/ui/dialog'
import { Spinner } from '~web/components/ui/spinner'
import { ErrorState } from '~web/components/ui/states'
import { toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { formatDateTime, relativeTime } from '~web/lib/time'
import { useConnectedApps, useRemoveAppAccess } from '../api/connected-apps'

/**
 * The Security tab's Connected apps: each application the person allowed through "Sign in with
 * Accounts", what it may see (the consent page's words), when it was allowed and last used, and
 * "Remove access" (its tokens die, and it asks for consent again next time).
 */
export function ConnectedAppsSection() {
  const { t } = useI18n()
  const apps = useConnectedApps()
  const [removing, setRemoving] = useState<ConnectedApp | null>(null)

  return (
    <Card aria-labelledby="connected-apps-title">
      <CardHeader>
        <CardTitle id="connected-apps-title" tabIndex={-1}>
          {t('connectedApps.title')}
        </CardTitle>
        <CardDescription>{t('connectedApps.description')}</CardDescription>
      </CardHeader>
      <CardContent>
        {apps.isPending ? (
          <Spinner label={t('app.loading')} />
        ) : apps.isError ? (
          <ErrorState message={t('connectedApps.loadFailed')} onRetry={() => void apps.refetch()} />
        ) : apps.data.length === 0 ? (
          <p className="text-sm text-muted">{t('connectedApps.empty')}</p>
        ) : (
          <ul id="connected-apps" aria-label={t('connectedApps.list')} className="divide-y divide-line">
            {apps.data.map((app) => (
              <ConnectedAppRow key={app.id} app={app} onRemove={() => setRemoving(app)} />
            ))}
          </ul>
        )}
      </CardContent>
      <RemoveAccessDialog app={removing} onClose={() => setRemoving(null)} />
    </Card>
  )
}

function When({ date }: { date: string }) {
  return (
    <time dateTime={date} title={formatDateTime(date)}>
      {relativeTime(date)}
    </time>
  )
}

/** Puts a time element where a text says `{{time}}`. */
function withTime(text: string, date: string) {
  const [before, after] = text.split('{{time}}')
  return (
    <>
      {before}
      <When date={date} />
      {after}
    </>
  )
}

function ConnectedAppRow({ app, onRemove }: { app: ConnectedApp; onRemove: () => void }) {
  const { t } = useI18n()
  return (
    <li className="flex flex-col gap-3 py-3 first:pt-0 last:pb-0 sm:flex-row sm:items-start">
      <div className="flex min-w-0 flex-1 items-start gap-3">
        <AppWindow aria-hidden className="mt-0.5 size-5 shrink-0 text-muted" />
        <div className="min-w-0 space-y-2">
          <p className="font-medium break-words">{app.name}</p>
          <ScopeList scopes={app.scopes} label={t('connectedApps.mayAccess', { name: app.name })} className="space-y-1 text-sm" />
          <p className="text-sm text-muted">
            {withTime(t('connectedApps.allowed', { time: '{{time}}' }), app.grantedAt)}
            {' · '}
            {app.lastUsedAt ? withTime(t('connectedApps.lastUsed', { time: '{{time}}' }), app.lastUsedAt) : t('connectedApps.neverUsed')}
          </p>
        </div>
      </div>
      <Button variant="outline" size="sm" className="self-start" aria-label={t('connectedApps.removeLabel', { name: app.name })} onClick={onRemove}>
        {t('connectedApps.remove')}
      </Button>
    </li>
  )
}

function RemoveAccessDialog({ app, onClose }: { app: ConnectedApp | null; onClose: () => void }) {
  const { t } = useI18n()
  const remove = useRemoveAppAccess()
  // After a removal the row and its button are gone: focus goes to the section's title.
  const removed = useRef(false)

  const confirm = async () => {
    if (!app) return
    try {
      await remove.mutateAsync(app.id)
      removed.current = true
      notify.success(t('connectedApps.removed', { name: app.name }))
      onClose()
    } catch (error) {
      toastFailure(error, t('connectedApps.removeFailed'))
    }
  }

  return (
    <Dialog
      open={!!app}
      onOpenChange={(open) => (open ? undefined : onClose())}
      returnFocus={() => {
        const afterRemoval = removed.current
        removed.current = false
        return afterRemoval ? document.getElementById('connected-apps-title') : null
      }}
      title={t('connectedApps.removeTitle')}
      description={app ? t('connectedApps.removeText', { name: app.name }) : undefined}
    >
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button variant="danger" onClick={() => void confirm()} disabled={remove.isPending}>
          {remove.isPending ? t('connectedApps.removing') : t('connectedApps.remove')}
        </Button>
      </div>
    </Dialog>
  )
}
