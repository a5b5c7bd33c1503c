import { render, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { LazyToaster } from '~web/app/lazy-toaster'
import { notify } from '~web/lib/toast'

/** Toasts sit top-right; on a phone they span the screen, so they show at the bottom, clear of the page's heading. */
describe('where toasts show', () => {
  const screenIs = (phone: boolean) =>
    vi.stubGlobal('matchMedia', (query: string) => ({
      matches: phone && query.includes('max-width: 600px'),
      media: query,
      addEventListener: () => {},
      removeEventListener: () => {},
    }))
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  test.each([
    [false, 'top', 'right'],
    [true, 'bottom', 'center'],
  ])('phone: %s → %s %s', async (phone, y, x) => {
    screenIs(phone)
    render(<LazyToaster />)
    notify.success('Profile updated successfully')
    await waitFor(() => expect(document.querySelector('[data-sonner-toaster]')).not.toBeNull())
    const toaster = document.querySelector('[data-sonner-toaster]')!
    expect([toaster.getAttribute('data-y-position'), toaster.getAttribute('data-x-position')]).toEqual([y, x])
  })
})
