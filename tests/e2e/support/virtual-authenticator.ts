import type { CDPSession, Page } from 'playwright-core'

/**
 * Chromium's virtual authenticator for the page (the DevTools protocol's WebAuthn domain: internal
 * transport, resident keys, user verification on, presence simulated), so passkeys are made and
 * used without a person. WebAuthn refuses an IP address as the relying party's id: the tests that
 * use it run the app at http://localhost (`browserTests({ host: 'localhost' })`).
 */
export async function addVirtualAuthenticator(page: Page): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('WebAuthn.enable', { enableUI: false })
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
  return cdp
}
