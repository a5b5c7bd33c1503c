import { useEffect, useState } from 'react'
import { Link, useNavigate, useSearchParams } from 'react-router'
import CircleCheck from 'lucide-react/icons/circle-check'
import Mail from 'lucide-react/icons/mail'
import { REDIRECT_AFTER_VERIFY_MS } from '~shared/constants'
import { PublicCard } from '~web/components/public-card'
import { ReturnToAppButton } from '~web/components/return-to-app'
import { Alert } from '~web/components/ui/alert'
import { Button, buttonClass } from '~web/components/ui/button'
import { Field } from '~web/components/ui/field'
import { Input } from '~web/components/ui/input'
import { Spinner } from '~web/components/ui/spinner'
import { paths } from '~web/config/paths'
import { recallInteraction } from '~web/lib/app-interaction'
import { failureText, toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { resendVerification } from '../api/resend-verification'
import { verifyEmail } from '../api/verify-email'
import type { LoginLocationState } from './login-page'

type Verification = { state: 'verifying' } | { state: 'verified' } | { state: 'failed'; message: string }

export function VerifyEmailPage() {
  const [params] = useSearchParams()
  const token = params.get('token')
  const email = params.get('email') ?? ''
  return token ? <VerifyWithToken token={token} email={email} /> : <VerifyInstructions email={email} />
}

/** With a token: verifies at once (the token is used once, see verifyEmail), then on to sign-in. */
function VerifyWithToken({ token, email }: { token: string; email: string }) {
  const { t } = useI18n()
  const navigate = useNavigate()
  const [result, setResult] = useState<Verification>({ state: 'verifying' })

  useEffect(() => {
    let active = true
    verifyEmail(token).then(
      () => {
        if (!active) return
        notify.success(t('verifyEmail.success'))
        setResult({ state: 'verified' })
      },
      (error: unknown) => {
        if (active) setResult({ state: 'failed', message: failureText(error, t('verifyEmail.failed')) })
      },
    )
    return () => {
      active = false
    }
  }, [token, t])

  useEffect(() => {
    if (result.state !== 'verified') return
    const timer = setTimeout(() => {
      const state: LoginLocationState = { message: t('verifyEmail.loginMessage') }
      void navigate(paths.login, { replace: true, state })
    }, REDIRECT_AFTER_VERIFY_MS)
    return () => clearTimeout(timer)
  }, [result.state, navigate, t])

  if (result.state === 'verifying') {
    return <PublicCard icon={<Spinner className="[&>span:first-child]:size-8" />} title={t('verifyEmail.verifyingTitle')} description={t('verifyEmail.verifyingText')} />
  }
  if (result.state === 'verified') {
    return (
      <PublicCard
        icon={<CircleCheck aria-hidden className="size-10 text-green-700 dark:text-green-400" />}
        title={t('verifyEmail.successTitle')}
        description={<span role="status">{t('verifyEmail.redirecting')}</span>}
      />
    )
  }
  return <VerifyInstructions email={email} error={result.message} />
}

/**
 * Without a token: where the link went, and a way to get another one; reached from an app's
 * sign-in request, also the way back to that app.
 */
function VerifyInstructions({ email, error }: { email: string; error?: string }) {
  const { t, tm } = useI18n()
  const [interaction] = useState(recallInteraction)
  const [sending, setSending] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)

  const resend = async () => {
    setProblem(null)
    setSending(true)
    try {
      const { resendVerificationSchema } = await import('~shared/schemas/auth')
      const checked = resendVerificationSchema.safeParse({ email })
      if (!checked.success) return setProblem(tm(checked.error.issues[0]?.message ?? ''))
      await resendVerification(checked.data.email)
      notify.success(t('verifyEmail.resent'))
    } catch (failure) {
      toastFailure(failure, t('verifyEmail.resendFailed'))
      setProblem(failureText(failure, t('verifyEmail.resendFailed')))
    } finally {
      setSending(false)
    }
  }

  return (
    <PublicCard
      icon={<Mail aria-hidden className="size-10 text-primary dark:text-blue-300" />}
      title={t('verifyEmail.title')}
      description={t('verifyEmail.text')}
      footer={
        <p>
          {t('verifyEmail.alreadyVerified')}{' '}
          <Link to={paths.login} className={buttonClass('link')}>
            {t('verifyEmail.signInHere')}
          </Link>
        </p>
      }
    >
      {error ? (
        <Alert tone="error" title={t('verifyEmail.failed')}>
          {error !== t('verifyEmail.failed') ? error : null}
        </Alert>
      ) : null}
      {problem ? <Alert tone="error">{problem}</Alert> : null}
      <Field label={t('verifyEmail.email')}>
        <Input type="email" value={email} placeholder={t('verifyEmail.noEmail')} readOnly />
      </Field>
      <Button className="w-full" onClick={() => void resend()} disabled={sending}>
        {sending ? t('verifyEmail.resending') : t('verifyEmail.resend')}
      </Button>
      <Link to={paths.login} className={buttonClass('outline', 'md', 'w-full')}>
        {t('common.backToLogin')}
      </Link>
      {interaction ? <ReturnToAppButton uid={interaction.uid} app={interaction.app} variant="link" className="w-full" /> : null}
    </PublicCard>
  )
}
