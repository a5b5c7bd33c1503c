import { type ReactNode, useMemo } from 'react'
import { Navigate, useLocation, useMatches } from 'react-router'
import { type Access, type GuardedPage, PAGE_ACCESS } from '~shared/permissions'
import { PageSpinner } from '~web/components/ui/spinner'
import { useSession } from '~web/lib/session'
import { decideAccess } from './guard'

/** What a route declares about itself (`handle` in the route table). */
export interface RouteHandle {
  page?: GuardedPage
  requireVerifiedEmail?: boolean
}

/**
 * The route guard. It reads the innermost matched route's page and looks its access up in the
 * shared permission table, so the table is the only place access is written.
 */
export function RequireAccess({ children }: { children: ReactNode }) {
  const session = useSession()
  const location = useLocation()
  const matches = useMatches()
  const handle = [...matches].reverse().find((match) => (match.handle as RouteHandle | undefined)?.page)?.handle as RouteHandle | undefined
  const access: Access = handle?.page ? PAGE_ACCESS[handle.page] : 'signed-in'
  const from = location.pathname + location.search + location.hash
  // One state object per origin: <Navigate> navigates again whenever its props change, and a
  // fresh object on every render would restart the navigation while the next page loads.
  const decision = decideAccess({ session, access, requireVerifiedEmail: handle?.requireVerifiedEmail ?? true, from })
  const sessionEnded = decision.kind === 'redirect' && !!decision.state?.sessionEnded
  const fromState = useMemo(() => (sessionEnded ? { from, sessionEnded } : { from }), [from, sessionEnded])
  if (decision.kind === 'loading') return <PageSpinner />
  if (decision.kind === 'redirect') return <Navigate to={decision.to} state={decision.state ? fromState : undefined} replace />
  return children
}
