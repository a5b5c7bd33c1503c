import { lazy, type ReactNode, Suspense, useEffect, useState } from 'react'
import type { MfaRequired } from '~shared/schemas/two-factor'
import { Link, Navigate, useLocation, useNavigate } from 'react-router'
import { PublicCard } from '~web/components/public-card'
import { PageSpinner } from '~web/components/ui/spinner'
import { Alert } from '~web/components/ui/alert'
import { Button, buttonClass } from '~web/components/ui/button'
import { Field } from '~web/components/ui/field'
import { Input } from '~web/components/ui/input'
import { PasswordInput } from '~web/components/ui/password-input'
import { accountStatusPath, paths, safeReturnPath, verifyEmailPath } from '~web/config/paths'
import { blockedStateOf, isApiError } from '~web/lib/failures'
import { applyServerFieldErrors, lazySchema, useSchemaForm } from '~web/lib/forms'
import { type TranslationKey, useI18n } from '~web/lib/i18n'
import { useSession } from '~web/lib/session'
import { notify } from '~web/lib/toast'
import { browserHasPasskeyAutofill, browserHasWebAuthn } from '~web/lib/webauthn'
import { login } from '../api/login'
import { cancelPasskeyAutofill, PasskeyCeremonyError, signInWithPasskey } from '../api/passkey-sign-in'
import { loginMessageKey } from '../login-message'
import { discoverProvider, listSignInProviders, type ProviderChoice } from '~web/features/provider-sign-in/api/sign-in-providers'

const loginSchema = lazySchema(() => import('~shared/schemas/auth').then((m) => m.loginSchema))
// Only accounts with two-factor on need it: kept out of the sign-in page's first load.
const SecondStepForm = lazy(() => import('./second-step-form').then((m) => ({ default: m.SecondStepForm })))
// An app's sign-in request (Sign in with Accounts): its own chunk, never loaded by a plain sign-in.
const AppSignIn = lazy(() => import('~web/features/oidc/components/app-sign-in').then((m) => ({ default: m.AppSignIn })))
// Signing in with a provider: loaded only when there is one to offer, or one to start (`?idp=`).
const providerChunk = () => import('~web/features/provider-sign-in/components/provider-buttons')
const ProviderButtons = lazy(() => providerChunk().then((m) => ({ default: m.ProviderButtons })))
const ProviderStart = lazy(() => providerChunk().then((m) => ({ default: m.ProviderStart })))

/** What the previous page may hand to the sign-in page. */
export interface LoginLocationState {
  from?: string
  message?: string
  /** The session ended without the user signing out (elsewhere, or it expired). */
  sessionEnded?: boolean
  /** Why a provider sign-in failed, already translated (`/login/complete`). */
  failure?: string
}

export function LoginPage() {
  const query = new URLSearchParams(useLocation().search)
  const interaction = query.get('interaction')
  // `?idp=<id>` (a link, or an app's `idp_hint`): that provider at once.
  if (query.get('idp')) {
    return (
      <Suspense fallback={<PageSpinner />}>
        <ProviderStart />
      </Suspense>
    )
  }
  if (!interaction) return <SignInForm />
  return (
    <Suspense fallback={<PageSpinner />}>
      <AppSignIn key={interaction} uid={interaction} signInForm={(props) => <SignInForm {...props} />} />
    </Suspense>
  )
}

/**
 * The sign-in form with everything it offers (password, the second step, passkeys). For an app's
 * sign-in request it names the app, and `onSignedIn` takes over after any successful sign-in
 * (and instead of the redirect of someone already signed in); `extra` goes under the form.
 */
export function SignInForm({
  app,
  onSignedIn,
  extra,
  email = '',
  notice,
}: {
  app?: string
  onSignedIn?: () => void
  extra?: ReactNode
  /** The address to sign in with, filled in; `notice` says why (a provider's link waits for it). */
  email?: string
  notice?: ReactNode
}) {
  const { t } = useI18n()
  const navigate = useNavigate()
  const location = useLocation()
  const current = useSession()
  const state = (location.state ?? {}) as LoginLocationState
  const [failure, setFailure] = useState<{ key: TranslationKey; email: string } | null>(null)
  const [secondStep, setSecondStep] = useState<(MfaRequired & { email: string }) | null>(null)
  const form = useSchemaForm({ schema: loginSchema, defaultValues: { email, password: '' } })
  const { errors, isSubmitting } = form.formState
  // Passkey controls only where the browser has WebAuthn: none at all elsewhere.
  const [passkeys] = useState(browserHasWebAuthn)
  const [passkeyBusy, setPasskeyBusy] = useState(false)
  // Providers: those the page shows, and the one the typed address's domain routes to.
  const [providers, setProviders] = useState<ProviderChoice[]>([])
  const [routed, setRouted] = useState<(ProviderChoice & { hint: string }) | null>(null)
  // After the provider: back to where the person wanted to go, or to this app's sign-in request.
  const back = app ? location.pathname + location.search : state.from
  useEffect(() => void listSignInProviders().then(setProviders, () => undefined), [])
  const onEmailBlur = (address: string) => {
    if (!notice && address.includes('@'))
      void discoverProvider(address).then(
        (found) => setRouted(found && { ...found, hint: address }),
        () => undefined,
      )
  }

  const signedIn = () => {
    notify.success(t('login.success'))
    onSignedIn?.()
  }

  /** What a passkey sign-in that did not succeed tells the person (nothing when the page is gone). */
  const passkeyFailed = (error: unknown) => {
    const blocked = blockedStateOf(error)
    if (blocked) return void navigate(accountStatusPath(blocked))
    if (error instanceof PasskeyCeremonyError) return setFailure({ key: 'passkeys.signInCancelled', email: '' })
    const code = isApiError(error) ? error.code : undefined
    setFailure({ key: code === 'INVALID_CREDENTIALS' ? 'passkeys.signInInvalid' : loginMessageKey(isApiError(error) ? error.message : '', code), email: '' })
  }

  // Passkeys offered in the e-mail field's autofill, where the browser can (conditional mediation):
  // the request waits for the person to pick one; leaving the page or the button cancels it.
  useEffect(() => {
    if (!passkeys) return
    let active = true
    void browserHasPasskeyAutofill().then((available) => {
      if (!available || !active) return
      signInWithPasskey({ autofill: true }).then(
        () => signedIn(),
        (error: unknown) => {
          if (active && !(error instanceof PasskeyCeremonyError)) passkeyFailed(error)
        },
      )
    })
    return () => {
      active = false
      void cancelPasskeyAutofill()
    }
    // Started once per visit of the page.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [passkeys])

  // Signed in (now or already): on to the page that was asked for. A blocked account's stale
  // session does not count, or its owner could never reach this form again.
  if (!onSignedIn && current.authenticated && current.user?.status === 'ACTIVE') return <Navigate to={safeReturnPath(state.from) ?? paths.dashboard} replace />

  const onPasskey = async () => {
    setFailure(null)
    setPasskeyBusy(true)
    try {
      await signInWithPasskey()
      signedIn()
    } catch (error) {
      passkeyFailed(error)
    } finally {
      setPasskeyBusy(false)
    }
  }

  const onSubmit = form.handleSubmit(async (values) => {
    setFailure(null)
    try {
      const result = await login(values)
      if ('mfaRequired' in result) return void setSecondStep({ ...result, email: values.email })
      signedIn()
    } catch (error) {
      const blocked = blockedStateOf(error)
      if (blocked) return void navigate(accountStatusPath(blocked, values.email))
      if (applyServerFieldErrors(error, form.setError, ['email', 'password'])) return
      setFailure({ key: loginMessageKey(isApiError(error) ? error.message : '', isApiError(error) ? error.code : undefined), email: values.email })
    }
  })

  if (secondStep) {
    return (
      <Suspense fallback={null}>
        <SecondStepForm
          mfaToken={secondStep.mfaToken}
          methods={secondStep.methods}
          email={secondStep.email}
          onRestart={() => setSecondStep(null)}
          onSignedIn={onSignedIn}
        />
      </Suspense>
    )
  }

  return (
    <PublicCard
      title={t('login.title')}
      description={app ? t('login.forApp', { app }) : t('login.description')}
      footer={
        <p>
          {t('login.noAccount')}{' '}
          <Link to={paths.register} className={buttonClass('link')}>
            {t('login.signUp')}
          </Link>
        </p>
      }
    >
      {notice}
      {state.message && !failure ? <Alert tone="success">{state.message}</Alert> : null}
      {!failure && (state.failure || location.search.includes('error=federation')) ? <Alert tone="error">{state.failure ?? t('providerSignIn.failed')}</Alert> : null}
      {state.sessionEnded && !state.message && !failure ? <Alert tone="info">{t('login.sessionEnded')}</Alert> : null}
      {failure ? (
        <Alert tone="error">
          <p>{t(failure.key)}</p>
          {failure.key === 'login.errors.notVerified' && failure.email ? (
            <Link to={verifyEmailPath(failure.email)} className={buttonClass('link', 'md', 'mt-1 text-inherit underline')}>
              {t('login.resendVerification')}
            </Link>
          ) : null}
        </Alert>
      ) : null}
      <form noValidate onSubmit={onSubmit} onFocus={form.preload} className="space-y-4">
        <Field label={t('login.email')} error={errors.email?.message}>
          <Input
            type="email"
            autoComplete={passkeys ? 'username webauthn' : 'email'}
            inputMode="email"
            {...form.register('email')}
            onBlur={(event) => onEmailBlur(event.target.value)}
          />
        </Field>
        {routed ? (
          <Suspense fallback={null}>
            <ProviderButtons providers={[routed]} returnTo={back} loginHint={routed.hint} routed onPassword={() => setRouted(null)} />
          </Suspense>
        ) : (
          <>
            <Field label={t('login.password')} error={errors.password?.message}>
              <PasswordInput autoComplete="current-password" {...form.register('password')} />
            </Field>
            <div className="flex justify-end">
              <Link to={paths.forgotPassword} className={buttonClass('link')}>
                {t('login.forgotPassword')}
              </Link>
            </div>
            <Button type="submit" className="w-full" disabled={isSubmitting}>
              {isSubmitting ? t('login.submitting') : t('login.submit')}
            </Button>
          </>
        )}
      </form>
      {passkeys ? (
        <div className="space-y-4">
          <p className="flex items-center gap-3 text-xs text-muted uppercase before:h-px before:flex-1 before:bg-line after:h-px after:flex-1 after:bg-line">
            {t('passkeys.or')}
          </p>
          <Button variant="outline" className="w-full" onClick={() => void onPasskey()} disabled={passkeyBusy}>
            {passkeyBusy ? t('passkeys.signingIn') : t('passkeys.signIn')}
          </Button>
        </div>
      ) : null}
      {providers.length > 0 && !notice ? (
        <Suspense fallback={null}>
          <ProviderButtons providers={providers} returnTo={back} />
        </Suspense>
      ) : null}
      {extra}
    </PublicCard>
  )
}
