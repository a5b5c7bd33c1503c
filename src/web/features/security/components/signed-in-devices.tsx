import { useState } from 'react'
import Monitor from 'lucide-react/icons/monitor'
import Smartphone from 'lucide-react/icons/smartphone'
import type { SignedInDevice } from '~shared/schemas/sessions'
import { Badge } from '~web/components/ui/badge'
import { Button } from '~web/components/ui/button'
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '~web/components/ui/card'
import { Dialog } from '~web/components/ui/dialog'
import { Spinner } from '~web/components/ui/spinner'
import { ErrorState } from '~web/components/ui/states'
import { toastFailure } from '~web/lib/failures'
import { type I18n, useI18n } from '~web/lib/i18n'
import { formatDateTime, relativeTime } from '~web/lib/time'
import { notify } from '~web/lib/toast'
import { useDevices } from '../api/get-devices'
import { useSignOutDevice, useSignOutOtherDevices } from '../api/sign-out-device'

const MOBILE_SYSTEMS = new Set(['iOS', 'Android', 'iPadOS', 'Windows Phone', 'BlackBerry', 'KaiOS'])

/** "Chrome 131 on macOS", with words for what the User-Agent did not say. */
export function deviceName(device: Pick<SignedInDevice, 'browser' | 'os'>, t: I18n['t']): string {
  return t('devices.deviceName', { browser: device.browser ?? t('devices.unknownBrowser'), os: device.os ?? t('devices.unknownSystem') })
}

/** Profile, Security tab: where the account is signed in, and signing those devices out. */
export function SignedInDevices() {
  const { t } = useI18n()
  const devices = useDevices()
  const signOutOthers = useSignOutOtherDevices()
  const [confirming, setConfirming] = useState(false)

  const sessions = devices.data?.sessions ?? []
  const others = sessions.filter((session) => !session.current)

  const endOthers = async () => {
    try {
      await signOutOthers.mutateAsync()
      notify.success(t('devices.othersSignedOut'))
      setConfirming(false)
    } catch (error) {
      toastFailure(error, t('devices.signOutFailed'))
    }
  }

  return (
    <Card aria-labelledby="signed-in-devices-title">
      <CardHeader>
        <CardTitle id="signed-in-devices-title">{t('devices.title')}</CardTitle>
        <CardDescription>{t('devices.description')}</CardDescription>
      </CardHeader>
      <CardContent>
        {devices.isPending ? (
          <Spinner label={t('devices.loading')} />
        ) : devices.isError ? (
          <ErrorState message={t('devices.loadFailed')} onRetry={() => void devices.refetch()} />
        ) : (
          <ul className="divide-y divide-line" aria-label={t('devices.title')}>
            {sessions.map((session) => (
              <DeviceItem key={session.id} device={session} />
            ))}
          </ul>
        )}
      </CardContent>
      {devices.isSuccess ? (
        <CardFooter className="flex-col items-start gap-2 sm:flex-row sm:items-center">
          {others.length > 0 ? (
            <Button variant="outline" onClick={() => setConfirming(true)}>
              {t('devices.signOutOthers')}
            </Button>
          ) : (
            <p className="text-sm text-muted">{t('devices.onlyThisDevice')}</p>
          )}
        </CardFooter>
      ) : null}
      <Dialog
        open={confirming}
        onOpenChange={setConfirming}
        title={t('devices.signOutOthersTitle')}
        description={t('devices.signOutOthersText', { count: String(others.length) })}
      >
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={() => setConfirming(false)}>
            {t('common.cancel')}
          </Button>
          <Button variant="danger" onClick={() => void endOthers()} disabled={signOutOthers.isPending}>
            {signOutOthers.isPending ? t('devices.signingOut') : t('devices.signOutOthersConfirm')}
          </Button>
        </div>
      </Dialog>
    </Card>
  )
}

function DeviceItem({ device }: { device: SignedInDevice }) {
  const { t } = useI18n()
  const signOut = useSignOutDevice()
  const name = deviceName(device, t)
  const Icon = device.os && MOBILE_SYSTEMS.has(device.os) ? Smartphone : Monitor

  const end = async () => {
    try {
      await signOut.mutateAsync(device.id)
      notify.success(t('devices.signedOut', { device: name }))
    } catch (error) {
      toastFailure(error, t('devices.signOutFailed'))
    }
  }

  return (
    <li className="flex flex-col gap-3 py-3 first:pt-0 last:pb-0 sm:flex-row sm:items-center">
      <div className="flex min-w-0 flex-1 items-start gap-3">
        <Icon aria-hidden className="mt-0.5 size-5 shrink-0 text-muted" />
        <div className="min-w-0 space-y-1">
          <p className="flex flex-wrap items-center gap-2 font-medium">
            <span className="break-words">{name}</span>
            {device.current ? <Badge tone="green">{t('devices.thisDevice')}</Badge> : null}
          </p>
          <p className="text-sm break-words text-muted">
            {device.ipAddress ? <span>{t('devices.address', { address: device.ipAddress })} · </span> : null}
            {device.current ? (
              t('devices.activeNow')
            ) : (
              <span>
                {t('devices.lastActive')}{' '}
                <time dateTime={device.lastUsedAt} title={formatDateTime(device.lastUsedAt)}>
                  {relativeTime(device.lastUsedAt)}
                </time>
              </span>
            )}
          </p>
        </div>
      </div>
      {device.current ? null : (
        <Button
          variant="outline"
          size="sm"
          className="self-start sm:self-center"
          aria-label={t('devices.signOutDevice', { device: name })}
          onClick={() => void end()}
          disabled={signOut.isPending}
        >
          {signOut.isPending ? t('devices.signingOut') : t('devices.signOut')}
        </Button>
      )}
    </li>
  )
}
