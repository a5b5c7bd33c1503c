import MonitorSmartphone from 'lucide-react/icons/monitor-smartphone'
import CircleCheck from 'lucide-react/icons/circle-check'
import CircleX from 'lucide-react/icons/circle-x'
import { useEffect } from 'react'
import { PublicCard } from '~web/components/public-card'
import { PageSpinner } from '~web/components/ui/spinner'
import { Alert } from '~web/components/ui/alert'
import { Button, buttonClass } from '~web/components/ui/button'
import { Input } from '~web/components/ui/input'
import { paths } from '~web/config/paths'
import { useI18n } from '~web/lib/i18n'

/**
 * Device sign-in (contract section 11): the pages the server answers at /oidc/device with this app
 * (src/server/oidc/device-flow.ts), what to show in the page's <meta> tags. Type the code the device
 * shows, confirm it is the one on the device (or deny), then the app's sign-in and consent pages,
 * and "Your device is signed in" or "Sign-in denied". Each form is a plain HTML form posted to the
 * provider's own address, with its anti-forgery value.
 */
export type DeviceView =
  | { kind: 'input'; action: string; xsrf: string; code: string; problem: '' | 'unknown' | 'missing' | 'throttled' | 'failed' }
  | { kind: 'confirm'; action: string; xsrf: string; code: string; app: string }
  | { kind: 'done'; app: string }
  | { kind: 'denied' }

const meta = (name: string): string => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? ''

/** The device page the server's answer names, if any. Forms only ever post to the provider's own /oidc/device. */
export function deviceView(): DeviceView | null {
  const step = meta('oidc-device')
  if (!step) return null
  const action = `${paths.oidc}/device`
  const code = meta('oidc-device-code').slice(0, 20)
  if (step === 'confirm') return { kind: 'confirm', action, xsrf: meta('oidc-device-xsrf'), code, app: meta('oidc-app-name') }
  if (step === 'done') return { kind: 'done', app: meta('oidc-app-name') }
  if (step === 'denied') return { kind: 'denied' }
  const problem = meta('oidc-device-error')
  return {
    kind: 'input',
    action,
    xsrf: meta('oidc-device-xsrf'),
    code,
    problem: problem === 'unknown' || problem === 'missing' || problem === 'throttled' || problem === 'failed' ? problem : '',
  }
}

/**
 * `APP_URL/device` (the address a device shows): the browser goes on to the provider's form,
 * with the code the device put in the address, if any.
 */
export function DeviceEntry() {
  useEffect(() => {
    window.location.replace(`${paths.oidc}/device${window.location.search}`)
  }, [])
  return <PageSpinner />
}

export function DevicePage({ view }: { view: DeviceView }) {
  if (view.kind === 'confirm') return <DeviceConfirm view={view} />
  if (view.kind === 'done') return <DeviceDone app={view.app} />
  if (view.kind === 'denied') return <DeviceDenied />
  return <DeviceCodeForm view={view} />
}

function DeviceCodeForm({ view }: { view: Extract<DeviceView, { kind: 'input' }> }) {
  const { t } = useI18n()
  const message =
    view.problem === 'unknown'
      ? t('oidc.deviceUnknown')
      : view.problem === 'missing'
        ? t('oidc.deviceMissing')
        : view.problem === 'throttled'
          ? t('oidc.deviceThrottled')
          : view.problem === 'failed'
            ? t('oidc.deviceFailed')
            : null
  if (view.problem === 'throttled' || !view.xsrf) {
    return (
      <PublicCard icon={<MonitorSmartphone aria-hidden className="size-10 text-muted" />} title={t('oidc.deviceTitle')}>
        <Alert tone="error">{message ?? t('oidc.deviceFailed')}</Alert>
        <a href={view.action} className={buttonClass('outline', 'md', 'w-full')}>
          {t('oidc.deviceTryAgain')}
        </a>
      </PublicCard>
    )
  }
  return (
    <PublicCard icon={<MonitorSmartphone aria-hidden className="size-10 text-muted" />} title={t('oidc.deviceTitle')} description={t('oidc.deviceText')}>
      {message ? (
        <div role="alert">
          <Alert tone="error">{message}</Alert>
        </div>
      ) : null}
      <form method="post" action={view.action} className="space-y-4">
        <input type="hidden" name="xsrf" value={view.xsrf} />
        <div className="space-y-1.5">
          <label htmlFor="device-user-code" className="block text-sm font-medium text-fg">
            {t('oidc.deviceCodeLabel')}
          </label>
          <Input
            id="device-user-code"
            name="user_code"
            defaultValue={view.code}
            autoComplete="one-time-code"
            autoCapitalize="characters"
            spellCheck={false}
            maxLength={20}
            required
            aria-describedby="device-user-code-hint"
            aria-invalid={view.problem === 'unknown' || view.problem === 'missing' ? true : undefined}
            className="text-center font-mono text-lg tracking-widest uppercase"
          />
          <p id="device-user-code-hint" className="text-xs text-muted">
            {t('oidc.deviceCodeHint')}
          </p>
        </div>
        <Button type="submit" className="w-full">
          {t('oidc.deviceContinue')}
        </Button>
      </form>
    </PublicCard>
  )
}

/** "Sign in to <app>?" with the code to compare with the device's; Deny tells the device access_denied. */
function DeviceConfirm({ view }: { view: Extract<DeviceView, { kind: 'confirm' }> }) {
  const { t } = useI18n()
  return (
    <PublicCard icon={<MonitorSmartphone aria-hidden className="size-10 text-muted" />} title={t('oidc.deviceConfirmTitle', { app: view.app })}>
      <p className="text-sm text-muted">{t('oidc.deviceConfirmText', { app: view.app })}</p>
      <p className="rounded-md border border-line bg-subtle p-3 text-center font-mono text-2xl tracking-widest" data-testid="device-code">
        {view.code}
      </p>
      <form method="post" action={view.action} className="flex flex-col-reverse gap-2 sm:flex-row">
        <input type="hidden" name="xsrf" value={view.xsrf} />
        <input type="hidden" name="user_code" value={view.code} />
        <Button type="submit" variant="outline" name="abort" value="yes" className="flex-1">
          {t('oidc.deviceDeny')}
        </Button>
        <Button type="submit" name="confirm" value="yes" className="flex-1">
          {t('oidc.deviceContinue')}
        </Button>
      </form>
    </PublicCard>
  )
}

function DeviceDone({ app }: { app: string }) {
  const { t } = useI18n()
  return (
    <PublicCard
      icon={<CircleCheck aria-hidden className="size-10 text-muted" />}
      title={t('oidc.deviceDoneTitle')}
      description={t('oidc.deviceDoneText', { app: app || t('oidc.deviceTitle') })}
    />
  )
}

function DeviceDenied() {
  const { t } = useI18n()
  return <PublicCard icon={<CircleX aria-hidden className="size-10 text-muted" />} title={t('oidc.deviceDeniedTitle')} description={t('oidc.deviceDeniedText')} />
}
