import { screen } from '@testing-library/react'
import { afterEach, describe, expect, test } from 'vitest'
import { ProtocolErrorPage } from '~web/features/oidc/components/protocol-error-page'
import { setLanguage } from '~web/lib/i18n'
import { installFakeApi } from './support/fake-api'
import { renderApp } from './support/render-app'

/**
 * An app's sign-out (RP-initiated logout): the server answers /oidc/session/end with the web app
 * and what to show in <meta> tags; the app shows "Sign out of <app>?" as a real form posted to the
 * provider, then "You have signed out".
 */
const withMeta = (meta: Record<string, string>) => {
  for (const [name, content] of Object.entries(meta)) {
    const tag = document.createElement('meta')
    tag.name = name
    tag.content = content
    document.head.append(tag)
  }
}
afterEach(async () => {
  document.head.querySelectorAll('meta[name^="oidc-"]').forEach((meta) => meta.remove())
  await setLanguage('en')
})

describe('the sign-out pages of an app', () => {
  test('asks "Sign out of <app>?" with a form the provider accepts, and a way to stay signed in', async () => {
    withMeta({ 'oidc-logout-action': '/oidc/session/end/confirm', 'oidc-logout-xsrf': 'x5rf', 'oidc-app-name': 'Team Wiki' })
    const api = installFakeApi()
    renderApp(<ProtocolErrorPage />, { url: '/oidc/session/end?client_id=wiki', path: '/oidc/*' })
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign out of Team Wiki?' })).toBeTruthy()
    expect(screen.getByText('You will also be signed out of Accounts in this browser.')).toBeTruthy()
    const button = screen.getByRole('button', { name: 'Sign out' }) as HTMLButtonElement
    expect(button.type).toBe('submit')
    expect([button.name, button.value]).toEqual(['logout', 'yes'])
    const form = button.form!
    expect(form.method).toBe('post')
    expect(form.getAttribute('action')).toBe('/oidc/session/end/confirm')
    expect((form.elements.namedItem('xsrf') as HTMLInputElement).value).toBe('x5rf')
    expect(screen.getByRole('link', { name: 'Stay signed in' }).getAttribute('href')).toBe('/dashboard')
    expect(screen.queryByText(/sign-in link does not work/)).toBeNull()
    expect(api.calls).toHaveLength(0)
  })

  test('posts only to the provider of this origin', async () => {
    withMeta({ 'oidc-logout-action': 'https://elsewhere.example.com/oidc/session/end/confirm', 'oidc-logout-xsrf': 'x', 'oidc-app-name': 'Team Wiki' })
    renderApp(<ProtocolErrorPage />, { url: '/oidc/session/end', path: '/oidc/*' })
    expect(await screen.findByRole('heading', { level: 1, name: 'This sign-in link does not work' })).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Sign out' })).toBeNull()
  })

  test('says "You have signed out" after the sign-out', async () => {
    withMeta({ 'oidc-signed-out': 'Team Wiki' })
    renderApp(<ProtocolErrorPage />, { url: '/oidc/session/end/success', path: '/oidc/*' })
    expect(await screen.findByRole('heading', { level: 1, name: 'You have signed out' })).toBeTruthy()
    expect(screen.getByText('You have signed out of Team Wiki and of Accounts in this browser.')).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Sign in again' }).getAttribute('href')).toBe('/login')
  })

  test('in the reader’s language', async () => {
    await setLanguage('de')
    withMeta({ 'oidc-logout-action': '/oidc/session/end/confirm', 'oidc-logout-xsrf': 'x', 'oidc-app-name': 'Team Wiki' })
    renderApp(<ProtocolErrorPage />, { url: '/oidc/session/end', path: '/oidc/*' })
    expect(await screen.findByRole('heading', { level: 1, name: 'Von Team Wiki abmelden?' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Abmelden' })).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Angemeldet bleiben' })).toBeTruthy()
  })
})
