import { type ReactNode, useEffect, useRef } from 'react'
import { type QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { queryClient as defaultClient } from '~web/lib/query-client'
import { useSession } from '~web/lib/session'

/** Server data of the signed-in pages. Nothing of one user's data survives a change of user. */
export function QueryProvider({ children, client = defaultClient }: { children: ReactNode; client?: QueryClient }) {
  const userId = useSession().user?.id ?? null
  const previous = useRef(userId)
  useEffect(() => {
    if (previous.current !== userId) client.clear()
    previous.current = userId
  }, [userId, client])
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>
}
