import AppWindow from 'lucide-react/icons/app-window'
import { useEffect, useState } from 'react'
import { Navigate, useSearchParams } from 'react-router'
import { PublicCard } from '~web/components/public-card'
import { ScopeList } from '~web/components/scope-list'
import { Alert } from '~web/components/ui/alert'
import { Button } from '~web/components/ui/button'
import { PageSpinner } from '~web/components/ui/spinner'
import { paths } from '~web/config/paths'
import { followToApp, rememberInteraction, returnToApp } from '~web/lib/app-interaction'
import { codeOf, isApiError } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { useSession } from '~web/lib/session'
import { allowApp, getInteractionWithTexts, type InteractionDetails } from '../api/interactions'
import { AccessDenied, InteractionExpired, InteractionFailed } from './interaction-states'

type View =
  | { kind: 'loading' }
  | { kind: 'expired' }
  | { kind: 'failed' }
  | { kind: 'signIn' }
  | { kind: 'denied'; details: InteractionDetails }
  | { kind: 'ask'; details: InteractionDetails }

/**
 * The consent page (`/consent?interaction=<uid>`): "<app> wants to:" and what it will see, with
 * Allow (the allowed set is remembered, and the browser goes back to the app) and Deny (the app
 * hears access_denied). Someone not signed in is sent to sign in for the same request first.
 */
export function ConsentPage() {
  const { t } = useI18n()
  const [params] = useSearchParams()
  const uid = params.get('interaction')
  const session = useSession()
  const [view, setView] = useState<View>({ kind: 'loading' })
  const [busy, setBusy] = useState<'allow' | 'deny' | null>(null)
  const [failed, setFailed] = useState(false)

  useEffect(() => {
    if (!uid) return
    let active = true
    getInteractionWithTexts(uid).then(
      (details) => {
        if (!active) return
        rememberInteraction({ uid, app: details.app.name })
        setView(details.refusal === 'role' ? { kind: 'denied', details } : { kind: 'ask', details })
      },
      (error: unknown) => {
        if (active) setView({ kind: codeOf(error) === 'INTERACTION_NOT_FOUND' ? 'expired' : 'failed' })
      },
    )
    return () => {
      active = false
    }
  }, [uid])

  const answer = async (choice: 'allow' | 'deny') => {
    if (!uid || view.kind !== 'ask') return
    setBusy(choice)
    setFailed(false)
    try {
      if (choice === 'allow') followToApp(await allowApp(uid))
      else await returnToApp(uid)
    } catch (error) {
      setBusy(null)
      const code = codeOf(error)
      if (code === 'INTERACTION_NOT_FOUND') return setView({ kind: 'expired' })
      if (code === 'APP_ACCESS_DENIED') return setView({ kind: 'denied', details: view.details })
      if (isApiError(error) && error.status === 401) return setView({ kind: 'signIn' })
      setFailed(true)
    }
  }

  const signedOut = session.status === 'ready' && !session.authenticated
  if (!uid || view.kind === 'expired') return <InteractionExpired />
  if (view.kind === 'signIn' || (signedOut && (view.kind === 'ask' || view.kind === 'loading'))) {
    return <Navigate to={`${paths.login}?${new URLSearchParams({ interaction: uid })}`} replace />
  }
  if (view.kind === 'failed') return <InteractionFailed />
  if (view.kind === 'denied') return <AccessDenied uid={uid} app={view.details.app.name} />
  if (view.kind === 'loading' || session.status === 'loading') return <PageSpinner />

  const app = view.details.app.name
  return (
    <PublicCard
      icon={<AppWindow aria-hidden className="size-10 text-muted" />}
      title={t('oidc.consentTitle', { app })}
      description={session.user ? t('oidc.signedInAs', { email: session.user.email }) : undefined}
    >
      {failed ? <Alert tone="error">{t('oidc.actionFailed')}</Alert> : null}
      <ScopeList scopes={view.details.scopes} label={t('oidc.consentList', { app })} className="space-y-2 rounded-md border border-line bg-subtle p-4 text-sm" />
      <p className="text-sm text-muted">{t('oidc.consentNote')}</p>
      <div className="flex flex-col-reverse gap-2 sm:flex-row">
        <Button variant="outline" className="flex-1" onClick={() => void answer('deny')} disabled={busy !== null}>
          {busy === 'deny' ? t('oidc.denying') : t('oidc.deny')}
        </Button>
        <Button className="flex-1" onClick={() => void answer('allow')} disabled={busy !== null}>
          {busy === 'allow' ? t('oidc.allowing') : t('oidc.allow')}
        </Button>
      </div>
    </PublicCard>
  )
}
