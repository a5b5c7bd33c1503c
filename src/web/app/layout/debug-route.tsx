import { DebugPage } from '~web/features/debug/components/debug-page'
import { PublicPage } from '~web/components/ui/card'
import { PageSpinner } from '~web/components/ui/spinner'
import { useSession } from '~web/lib/session'
import { QueryProvider } from '../query-provider'
import { AppShell } from './app-shell'

/**
 * /debug is public in the route table and listed for any signed-in user too:
 * it opens for everyone, bare when signed out, inside the usual frame when signed in, and it
 * never redirects, so it can show a broken session as it is.
 */
export function DebugRoute() {
  const current = useSession()
  if (current.status === 'loading') return <PageSpinner />
  if (!current.authenticated || !current.user) {
    return (
      <PublicPage width="xl">
        <DebugPage />
      </PublicPage>
    )
  }
  return (
    <QueryProvider>
      <AppShell user={current.user}>
        <DebugPage />
      </AppShell>
    </QueryProvider>
  )
}
