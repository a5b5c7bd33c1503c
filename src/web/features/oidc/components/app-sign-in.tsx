import { type ReactNode, useCallback, useEffect, useState } from 'react'
import { useNavigate } from 'react-router'
import { ReturnToAppButton } from '~web/components/return-to-app'
import { PageSpinner } from '~web/components/ui/spinner'
import { accountStatusPath, verifyEmailPath } from '~web/config/paths'
import { followToApp, rememberInteraction } from '~web/lib/app-interaction'
import { blockedStateOf, codeOf, isApiError } from '~web/lib/failures'
import { session, type SessionView } from '~web/lib/session'
import { completeInteractionSignIn, getInteractionWithTexts, type InteractionDetails } from '../api/interactions'
import { AccessDenied, InteractionExpired, InteractionFailed } from './interaction-states'

type View =
  | { kind: 'loading' }
  | { kind: 'expired' }
  | { kind: 'failed' }
  | { kind: 'denied'; details: InteractionDetails }
  | { kind: 'form'; details: InteractionDetails }
  | { kind: 'continuing' }

export interface SignInFormProps {
  app: string
  onSignedIn: () => void
  extra: ReactNode
}

/** The session once it is known (the stored token checked, refreshed if it had to be). */
function sessionReady(): Promise<SessionView> {
  return new Promise((resolve) => {
    let unsubscribe = () => {}
    const check = () => {
      const view = session.get()
      if (view.status !== 'ready') return false
      unsubscribe()
      resolve(view)
      return true
    }
    if (!check()) unsubscribe = session.subscribe(check)
  })
}

/**
 * The sign-in page for an app's sign-in request (`/login?interaction=<uid>`): it names the app and
 * offers everything the sign-in offers; once the person is signed in (now, or already: single
 * sign-on, unless the app asked for a new sign-in) the request goes on to consent or back to the
 * app. A person whose role the app does not admit is told so, with a way back to the app.
 * `signInForm` is the sign-in page's own form, handed in by that page (so this chunk does not
 * import the page that loads it).
 */
export function AppSignIn({ uid, signInForm }: { uid: string; signInForm: (props: SignInFormProps) => ReactNode }) {
  const navigate = useNavigate()
  const [view, setView] = useState<View>({ kind: 'loading' })

  const continueToApp = useCallback(
    async (details: InteractionDetails) => {
      setView({ kind: 'continuing' })
      try {
        followToApp(await completeInteractionSignIn(uid))
      } catch (error) {
        const blocked = blockedStateOf(error)
        if (blocked) return void navigate(accountStatusPath(blocked, session.get().user?.email))
        const code = codeOf(error)
        if (code === 'EMAIL_NOT_VERIFIED') return void navigate(verifyEmailPath(session.get().user?.email))
        if (code === 'APP_ACCESS_DENIED') return setView({ kind: 'denied', details })
        if (code === 'INTERACTION_NOT_FOUND') return setView({ kind: 'expired' })
        // A new sign-in asked for, or the session found over: the form, whatever the session says.
        if (code === 'FRESH_SIGN_IN_REQUIRED' || (isApiError(error) && error.status === 401)) return setView({ kind: 'form', details })
        setView({ kind: 'failed' })
      }
    },
    [uid, navigate],
  )

  // The request's details (and the texts of these pages); then single sign-on, once the session
  // is known: someone already signed in is not asked again, unless the app wants a new sign-in.
  useEffect(() => {
    let active = true
    getInteractionWithTexts(uid).then(
      async (details) => {
        if (!active) return
        rememberInteraction({ uid, app: details.app.name })
        if (details.refusal === 'role') return setView({ kind: 'denied', details })
        const current = await sessionReady()
        if (!active) return
        const signedIn = current.authenticated && current.user?.status === 'ACTIVE'
        if (signedIn && !details.freshSignIn) void continueToApp(details)
        else setView({ kind: 'form', details })
      },
      (error: unknown) => {
        if (active) setView({ kind: codeOf(error) === 'INTERACTION_NOT_FOUND' ? 'expired' : 'failed' })
      },
    )
    return () => {
      active = false
    }
  }, [uid, continueToApp])

  switch (view.kind) {
    case 'loading':
    case 'continuing':
      return <PageSpinner />
    case 'expired':
      return <InteractionExpired />
    case 'failed':
      return <InteractionFailed />
    case 'denied':
      return <AccessDenied uid={uid} app={view.details.app.name} />
    case 'form': {
      const { details } = view
      return signInForm({
        app: details.app.name,
        onSignedIn: () => void continueToApp(details),
        extra: (
          <div className="flex justify-center">
            <ReturnToAppButton uid={uid} app={details.app.name} variant="link" />
          </div>
        ),
      })
    }
  }
}
