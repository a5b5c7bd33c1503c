import { afterEach, describe, expect, test, vi } from 'vitest'

/** The support address shown on the account-status page comes from the server, through the page. */
describe('the support address', () => {
  afterEach(() => document.head.querySelectorAll('meta[name="support-email"]').forEach((meta) => meta.remove()))

  test('is the one the server put in the page', async () => {
    const meta = document.createElement('meta')
    meta.name = 'support-email'
    meta.content = 'help@acme.test'
    document.head.append(meta)
    vi.resetModules()
    expect((await import('~web/config/app')).SUPPORT_EMAIL).toBe('help@acme.test')
  })

  test('is the default when the server gave none', async () => {
    vi.resetModules()
    expect((await import('~web/config/app')).SUPPORT_EMAIL).toBe('support@example.com')
  })
})
