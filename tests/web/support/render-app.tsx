import { render } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { ReactElement } from 'react'
import { RouterProvider, createMemoryRouter, useLocation } from 'react-router'
import type { User } from '~shared/schemas/user'
import { LazyToaster } from '~web/app/lazy-toaster'
import { QueryProvider } from '~web/app/query-provider'
import { routes } from '~web/app/routes'
import { session } from '~web/lib/session'

/**
 * Renders a piece of the app the way the browser would: signed in as `user` (or signed out), at
 * `url`, inside a memory router. Without `ui` it renders the real route table (guard, layout,
 * lazy pages); with `ui` it renders that element at the url's path, and any other address shows
 * "Location: <path>" so a test can see where the app went.
 */
export interface RenderAppOptions {
  user?: User | null
  url?: string
  /** The route pattern `ui` is mounted at (default: the url's path). */
  path?: string
  /** History state of the first entry (what a previous page handed over). */
  state?: unknown
}

export function signIn(user: User): void {
  session.signIn({ accessToken: `access-${user.id}`, refreshToken: `refresh-${user.id}`, csrfToken: 'csrf-token', user })
}

function LocationDisplay() {
  const location = useLocation()
  return <p data-testid="location">Location: {location.pathname + location.search}</p>
}

export function renderApp(ui: ReactElement | null, { user = null, url = '/', path, state }: RenderAppOptions = {}) {
  if (user) signIn(user)
  const { pathname, search } = new URL(url, 'http://localhost')
  const router = createMemoryRouter(
    ui
      ? [
          { path: path ?? pathname, element: <QueryProvider>{ui}</QueryProvider> },
          { path: '*', element: <LocationDisplay /> },
        ]
      : routes,
    { initialEntries: [state === undefined ? url : { pathname, search, state }] },
  )
  const result = render(
    <>
      <RouterProvider router={router} />
      <LazyToaster />
    </>,
  )
  return { ...result, router, user: userEvent.setup(), location: () => router.state.location }
}
