import { screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { ConsentPage } from '~web/features/oidc/components/consent-page'
import { ProtocolErrorPage } from '~web/features/oidc/components/protocol-error-page'
import { browserNavigation } from '~web/lib/app-interaction'
import { setLanguage } from '~web/lib/i18n'
import { fail, installFakeApi, ok } from './support/fake-api'
import { settle } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

/**
 * The consent page an app's sign-in request leads to ("Team Wiki wants to:"), and the page for
 * a protocol error that cannot go back to any app.
 */
const details = (scopes: string[]) =>
  ok({ uid: 'u1', app: { id: 'wiki', name: 'Team Wiki', firstParty: false }, prompt: 'consent', freshSignIn: false, scopes, refusal: null })
const BACK = 'https://wiki.example.com/cb?code=abc'

let assign: ReturnType<typeof vi.fn<(url: string) => void>>
beforeEach(() => {
  assign = vi.fn<(url: string) => void>()
  vi.spyOn(browserNavigation, 'assign').mockImplementation(assign)
})
afterEach(() => sessionStorage.clear())

const renderConsent = (signedIn = true) =>
  renderApp(<ConsentPage />, { url: '/consent?interaction=u1', path: '/consent', user: signedIn ? makeUser({ email: 'ann@example.com' }) : null })

describe('the consent page', () => {
  test('says what the app will see, one line per scope, and Allow goes back to the app', async () => {
    const api = installFakeApi()
      .on('GET /oidc/interactions/:uid/details', details(['openid', 'profile', 'email', 'phone', 'roles', 'offline_access']))
      .on('POST /oidc/interactions/:uid/consent', ok({ redirectTo: BACK }))
    const { user } = renderConsent()
    expect(await screen.findByRole('heading', { level: 1, name: 'Team Wiki wants to:' })).toBeTruthy()
    expect(screen.getByText('Signed in as ann@example.com')).toBeTruthy()
    const list = screen.getByRole('list', { name: 'What Team Wiki will be able to do' })
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      'See your name and profile picture',
      'See your e-mail address',
      'See your phone number',
      'See your role',
      'Stay signed in (keep access when you are away)',
    ])
    await user.click(screen.getByRole('button', { name: 'Allow' }))
    await waitFor(() => expect(assign).toHaveBeenCalledWith(BACK))
    const [call] = api.callsTo('POST /oidc/interactions/:uid/consent')
    expect(call!.body).toEqual({})
    expect(call!.headers.get('Authorization')).toMatch(/^Bearer /)
  })

  test('openid alone: the app only knows who you are', async () => {
    installFakeApi().on('GET /oidc/interactions/:uid/details', details(['openid']))
    renderConsent()
    const list = await screen.findByRole('list', { name: 'What Team Wiki will be able to do' })
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['Know who you are'])
  })

  test('Deny ends the request: the app hears access_denied', async () => {
    const api = installFakeApi()
      .on('GET /oidc/interactions/:uid/details', details(['openid', 'email']))
      .on('POST /oidc/interactions/:uid/abort', ok({ redirectTo: 'https://wiki.example.com/cb?error=access_denied' }))
    const { user } = renderConsent()
    await user.click(await screen.findByRole('button', { name: 'Deny' }))
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://wiki.example.com/cb?error=access_denied'))
    expect(api.callsTo('POST /oidc/interactions/:uid/consent')).toHaveLength(0)
  })

  test('someone not signed in signs in for the same request first', async () => {
    installFakeApi().on('GET /oidc/interactions/:uid/details', details(['openid']))
    renderConsent(false)
    expect((await screen.findByTestId('location')).textContent).toBe('Location: /login?interaction=u1')
  })

  test('an expired request says so, and sends nobody anywhere', async () => {
    installFakeApi().on('GET /oidc/interactions/:uid/details', fail(404, 'Sign-in request not found', { code: 'INTERACTION_NOT_FOUND' }))
    renderConsent()
    expect(await screen.findByText('This sign-in request has expired. Go back to the app and try again.')).toBeTruthy()
    await settle()
    expect(assign).not.toHaveBeenCalled()
  })

  test('speaks the chosen language', async () => {
    await setLanguage('fr')
    installFakeApi().on('GET /oidc/interactions/:uid/details', details(['openid', 'email']))
    renderConsent()
    expect(await screen.findByRole('heading', { level: 1, name: 'Team Wiki souhaite :' })).toBeTruthy()
    expect(screen.getByText('Voir votre adresse e-mail')).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Autoriser' })).toBeTruthy()
  })
})

describe('the protocol error page', () => {
  const withError = (code: string | null) => {
    document.head.querySelectorAll('meta[name^="oidc-error"]').forEach((meta) => meta.remove())
    if (code === null) return
    const meta = document.createElement('meta')
    meta.name = 'oidc-error'
    meta.content = code
    document.head.append(meta)
  }
  afterEach(() => withError(null))

  test.each([
    ['invalid_redirect_uri', "The app sent you here with an address it is not registered for. Tell the app's administrator."],
    ['invalid_client', 'The app that sent you here is not known to Accounts.'],
  ])('%s: says what is wrong, links home, redirects nowhere', async (code, text) => {
    withError(code)
    const api = installFakeApi()
    renderApp(<ProtocolErrorPage />, { url: '/oidc/auth?client_id=x', path: '/oidc/*' })
    expect(await screen.findByRole('heading', { level: 1, name: 'This sign-in link does not work' })).toBeTruthy()
    expect(screen.getByText(text)).toBeTruthy()
    expect(screen.queryByText(/Error code/)).toBeNull()
    expect(screen.getByRole('link', { name: 'Go to your account' }).getAttribute('href')).toBe('/')
    expect(api.calls).toHaveLength(0)
    expect(assign).not.toHaveBeenCalled()
  })

  test('is what the app shows at any /oidc address the server answers with it', async () => {
    withError('invalid_client')
    const { location } = renderApp(null, { url: '/oidc/auth?client_id=nobody' })
    expect(await screen.findByRole('heading', { level: 1, name: 'This sign-in link does not work' })).toBeTruthy()
    expect(location().pathname).toBe('/oidc/auth')
  })

  test('any other error: a general text, with the code shown small', async () => {
    withError('unsupported_response_type')
    renderApp(<ProtocolErrorPage />, { url: '/oidc/auth', path: '/oidc/*' })
    expect(await screen.findByText("The app that sent you here made a request that cannot be completed. Tell the app's administrator.")).toBeTruthy()
    expect(screen.getByText('Error code: unsupported_response_type')).toBeTruthy()
  })
})
