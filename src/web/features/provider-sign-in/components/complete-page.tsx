import { useEffect, useRef, useState } from 'react'
import { useNavigate } from 'react-router'
import { safeReturnTo } from '~shared/return-to'
import type { LinkRequired } from '~shared/schemas/federation'
import type { MfaRequired } from '~shared/schemas/two-factor'
import { Alert } from '~web/components/ui/alert'
import { Spinner } from '~web/components/ui/spinner'
import { PublicCard } from '~web/components/public-card'
import { accountStatusPath, paths } from '~web/config/paths'
import { SignInForm } from '~web/features/auth/components/login-page'
import { SecondStepForm } from '~web/features/auth/components/second-step-form'
import { blockedStateOf } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { completeProviderSignIn, linkPendingIdentity } from '../api/complete'
import { providerMessage } from '../provider-message'

type Step = { kind: 'working' } | { kind: 'second-step'; challenge: MfaRequired } | { kind: 'link'; link: LinkRequired }

/** The handoff code the server put in the fragment (never sent to a server by the browser). */
function handoffOf(hash: string): string | null {
  return new URLSearchParams(hash.replace(/^#/, '')).get('handoff')
}

/**
 * `/login/complete#handoff=…`, where the server hands a provider sign-in to the web app (contract
 * section 10, decision 0511): the code is redeemed once, and then
 * - signed in: on to where the person wanted to go (`returnTo`, a path of this origin);
 * - two-factor on: the second step, as after a password;
 * - an account already has the provider's address: its owner signs in to it here (password and
 *   second step, or a passkey), and only then is the identity linked (decision 0512);
 * - a link made from Profile → Security: back there.
 * Any failure lands on the sign-in page with its explanation.
 */
export function ProviderCompletePage() {
  const { t } = useI18n()
  const navigate = useNavigate()
  const [step, setStep] = useState<Step>({ kind: 'working' })
  const returnTo = useRef<string>(paths.dashboard)
  const started = useRef(false)

  const fail = (error: unknown) => {
    const blocked = blockedStateOf(error)
    if (blocked) return void navigate(accountStatusPath(blocked), { replace: true })
    const { key, vars } = providerMessage(error)
    void navigate(paths.login, { replace: true, state: { failure: t(key, vars) } })
  }
  const goOn = () => void navigate(returnTo.current, { replace: true })

  useEffect(() => {
    // Once, even when React runs the effect twice; the code leaves the address bar at once.
    if (started.current) return
    started.current = true
    const handoff = handoffOf(window.location.hash)
    window.history.replaceState(window.history.state, '', window.location.pathname)
    if (!handoff) return fail(null)
    completeProviderSignIn(handoff).then((result) => {
      returnTo.current = safeReturnTo(result.returnTo)
      if ('mfaRequired' in result) return setStep({ kind: 'second-step', challenge: result })
      if ('linkRequired' in result) return setStep({ kind: 'link', link: result })
      notify.success('linked' in result ? t('providerComplete.linked', { name: result.identity.providerName }) : t('login.success'))
      goOn()
    }, fail)
    // Runs once per visit of the page.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])

  if (step.kind === 'second-step') {
    const { mfaToken, methods } = step.challenge
    return <SecondStepForm mfaToken={mfaToken} methods={methods} email="" onRestart={() => void navigate(paths.login, { replace: true })} onSignedIn={goOn} />
  }
  if (step.kind === 'link') {
    const { link } = step
    const linkAfterSignIn = () => {
      linkPendingIdentity(link.linkToken)
        .then(
          () => notify.success(t('providerComplete.linked', { name: link.provider.name })),
          (error: unknown) => {
            const { key, vars } = providerMessage(error)
            notify.error(t(key, vars))
          },
        )
        .finally(goOn)
    }
    return (
      <SignInForm
        email={link.email}
        onSignedIn={linkAfterSignIn}
        notice={
          <Alert tone="info" title={t('providerComplete.linkTitle', { name: link.provider.name })}>
            {t('providerComplete.linkText', { email: link.email, name: link.provider.name })}
          </Alert>
        }
      />
    )
  }
  return (
    <PublicCard title={t('providerComplete.working')}>
      <div className="flex justify-center">
        <Spinner label={t('providerComplete.working')} />
      </div>
    </PublicCard>
  )
}
