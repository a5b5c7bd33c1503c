import { Outlet } from 'react-router'
import { useSession } from '~web/lib/session'
import { QueryProvider } from '../query-provider'
import { RequireAccess } from '../require-access'
import { AppShell } from './app-shell'

/** The layout route of every signed-in page: the guard, then the frame around the page. */
export function SignedInLayout() {
  return (
    <RequireAccess>
      <SignedInFrame />
    </RequireAccess>
  )
}

function SignedInFrame() {
  const { user } = useSession()
  if (!user) return null
  return (
    <QueryProvider>
      <AppShell user={user}>
        <Outlet />
      </AppShell>
    </QueryProvider>
  )
}
