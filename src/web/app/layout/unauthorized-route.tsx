import { AccessDeniedCard, UnauthorizedPage } from '~web/features/access/components/unauthorized-page'
import { PageSpinner } from '~web/components/ui/spinner'
import { useSession } from '~web/lib/session'
import { QueryProvider } from '../query-provider'
import { AppShell } from './app-shell'

/**
 * /unauthorized: a signed-in user sent here keeps the top bar and the side menu, so the way on is
 * in sight; a visitor who is not signed in (or whose account may not pass) gets the bare page.
 */
export function UnauthorizedRoute() {
  const current = useSession()
  if (current.status === 'loading') return <PageSpinner />
  const user = current.authenticated ? current.user : null
  if (!user || user.status !== 'ACTIVE' || !user.emailVerified) return <UnauthorizedPage />
  return (
    <QueryProvider>
      <AppShell user={user}>
        <AccessDeniedCard />
      </AppShell>
    </QueryProvider>
  )
}
