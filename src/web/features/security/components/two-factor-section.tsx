import { useState } from 'react'
import type { TotpSetup as Setup } from '~shared/schemas/two-factor'
import { Badge } from '~web/components/ui/badge'
import { Button } from '~web/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~web/components/ui/card'
import { ErrorState } from '~web/components/ui/states'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { useDisableTwoFactor, useEnableTotp, useRegenerateRecoveryCodes, useSetUpTotp, useTwoFactorStatus } from '../api/two-factor'
import { PasswordConfirmForm } from './password-confirm-form'
import { RecoveryCodes } from './recovery-codes'
import { TotpSetup } from './totp-setup'

/** Where the section is: at rest, asking the password for an action, scanning, or showing new codes. */
type Step = { kind: 'rest' } | { kind: 'password'; action: 'setup' | 'regenerate' | 'disable' } | { kind: 'scan'; setup: Setup } | { kind: 'codes'; codes: string[] }

/**
 * Profile, Security tab: two-factor sign-in with an authenticator app. Setup asks the password,
 * shows the QR code and the key as text, and turns on only after a correct code; the recovery
 * codes are shown once. New codes and turning off ask the password.
 */
export function TwoFactorSection({ email }: { email: string }) {
  const { t } = useI18n()
  const status = useTwoFactorStatus()
  const setUp = useSetUpTotp()
  const enable = useEnableTotp()
  const disable = useDisableTwoFactor()
  const regenerate = useRegenerateRecoveryCodes()
  const [step, setStep] = useState<Step>({ kind: 'rest' })
  const rest = () => setStep({ kind: 'rest' })

  const confirm = async (action: 'setup' | 'regenerate' | 'disable', password: string) => {
    if (action === 'setup') {
      setStep({ kind: 'scan', setup: await setUp.mutateAsync({ password }) })
    } else if (action === 'regenerate') {
      setStep({ kind: 'codes', codes: (await regenerate.mutateAsync({ password })).recoveryCodes })
      notify.success(t('twoFactorSettings.newCodesDone'))
    } else {
      await disable.mutateAsync({ password })
      rest()
      notify.success(t('twoFactorSettings.turnedOff'))
    }
  }

  const on = status.data?.totp === true
  return (
    <Card aria-labelledby="two-factor-title">
      <CardHeader>
        <div className="flex flex-wrap items-center gap-2">
          <CardTitle id="two-factor-title">{t('twoFactorSettings.title')}</CardTitle>
          {status.data ? <Badge tone={on ? 'green' : 'gray'}>{on ? t('twoFactorSettings.statusOn') : t('twoFactorSettings.statusOff')}</Badge> : null}
        </div>
        <CardDescription>{t('twoFactorSettings.description')}</CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {status.isError ? <ErrorState message={t('twoFactorSettings.loadFailed')} onRetry={() => void status.refetch()} /> : null}
        {status.data && step.kind === 'rest' ? (
          <>
            <p className="text-sm">{on ? t('twoFactorSettings.onText') : t('twoFactorSettings.offText')}</p>
            {on ? <p className="text-sm text-muted">{t('twoFactorSettings.codesLeft', { count: status.data.recoveryCodesLeft })}</p> : null}
            <div className="flex flex-col gap-2 sm:flex-row">
              {on ? (
                <>
                  <Button variant="outline" onClick={() => setStep({ kind: 'password', action: 'regenerate' })}>
                    {t('twoFactorSettings.newCodes')}
                  </Button>
                  <Button variant="danger" onClick={() => setStep({ kind: 'password', action: 'disable' })}>
                    {t('twoFactorSettings.turnOff')}
                  </Button>
                </>
              ) : (
                <Button onClick={() => setStep({ kind: 'password', action: 'setup' })}>{t('twoFactorSettings.setUp')}</Button>
              )}
            </div>
          </>
        ) : null}
        {step.kind === 'password' ? (
          <PasswordConfirmForm
            id={`two-factor-${step.action}`}
            submitLabel={
              step.action === 'setup' ? t('twoFactorSettings.continue') : step.action === 'regenerate' ? t('twoFactorSettings.newCodes') : t('twoFactorSettings.turnOff')
            }
            danger={step.action === 'disable'}
            onConfirm={(password) => confirm(step.action, password)}
            onCancel={rest}
          />
        ) : null}
        {step.kind === 'scan' ? (
          <TotpSetup
            setup={step.setup}
            onEnable={async (code) => {
              setStep({ kind: 'codes', codes: (await enable.mutateAsync({ code })).recoveryCodes })
              notify.success(t('twoFactorSettings.enabled'))
            }}
            onCancel={rest}
          />
        ) : null}
        {step.kind === 'codes' ? <RecoveryCodes codes={step.codes} email={email} onDone={rest} /> : null}
      </CardContent>
    </Card>
  )
}
