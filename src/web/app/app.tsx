import { createBrowserRouter, RouterProvider } from 'react-router'
import { LazyToaster } from './lazy-toaster'
import { routes } from './routes'

const router = createBrowserRouter(routes)

export function App() {
  return (
    <>
      <RouterProvider router={router} />
      <LazyToaster />
    </>
  )
}
