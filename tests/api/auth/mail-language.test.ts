import { describe, expect, it } from 'vitest'
import { useMailboxTestApp } from '../../support/mailbox'
import { STRONG_PASSWORD, useTestApp } from '../../support/test-app'
import { forgotPassword, linkTo, mailTo, newVisitor, register, signInAs, tokenOf } from './helpers'

/**
 * Every e-mail is written in the language of the request that caused it: the web app sends its
 * interface language as `Accept-Language`, and the server picks en, fr, es or de from it (else
 * English). The subject ends with the product's name (APP_NAME).
 */
describe('e-mails in the language of the request that caused them', () => {
  const t = useTestApp()

  it('a registration sent in French gets a French verification e-mail whose link works', async () => {
    const visitor = newVisitor({ name: 'Marie Curie' })
    const response = await register(t, visitor, { headers: { 'accept-language': 'fr' } })
    expect(response.statusCode, response.body).toBe(201)

    const [mail, ...others] = await mailTo(t, visitor.email)
    expect(others).toEqual([])
    expect(mail!.subject).toBe('Vérifiez votre adresse e-mail - Accounts')
    expect(mail!.text).toContain('Bonjour Marie Curie,')
    expect(mail!.text).toContain('Merci de vous être inscrit sur Accounts.')
    expect(mail!.text).toContain("Vérifier l'adresse e-mail: http://app.test/verify-email?token=")
    expect(mail!.text).not.toMatch(/Hello|Thank you|expires/)
    const verified = await t.request('GET', `/api/auth/verify-email/${tokenOf(linkTo(mail!, '/verify-email'))}`)
    expect(verified.statusCode).toBe(200)
  })

  it('a reset asked for in German gets a German reset e-mail, and the reset made in German a German notice', async () => {
    const user = await t.createUser({ name: 'Lise Meitner' })
    expect((await t.request('POST', '/api/auth/forgot-password', { body: { email: user.email }, headers: { 'accept-language': 'de' } })).statusCode).toBe(200)
    const [reset] = await mailTo(t, user.email)
    expect(reset!.subject).toBe('Setzen Sie Ihr Passwort zurück - Accounts')
    expect(reset!.text).toContain('Hallo Lise Meitner,')
    expect(reset!.text).toContain('Passwort zurücksetzen: http://app.test/reset-password?token=')

    const password = 'Kernspaltung-1938-Stockholm!'
    const done = await t.request('POST', `/api/auth/reset-password/${tokenOf(linkTo(reset!, '/reset-password'))}`, {
      body: { password, confirmPassword: password },
      headers: { 'accept-language': 'de-AT,de;q=0.9,en;q=0.5' },
    })
    expect(done.statusCode, done.body).toBe(200)
    const [, changed] = await mailTo(t, user.email)
    expect(changed!.subject).toBe('Ihr Passwort wurde geändert - Accounts')
    expect(changed!.text).toContain('setzen Sie Ihr Passwort jetzt zurück: http://app.test/forgot-password')
  })

  it('an address already registered warns its owner in the language of the attempt', async () => {
    const owner = await t.createUser({ name: 'Severo Ochoa' })
    await register(t, newVisitor({ email: owner.email }), { headers: { 'accept-language': 'es-MX,es;q=0.9' } })
    const [mail] = await mailTo(t, owner.email)
    expect(mail!.subject).toBe('Alguien intentó registrarse con tu dirección de correo electrónico - Accounts')
    expect(mail!.text).toContain('Hola, Severo Ochoa:')
    expect(mail!.text).toContain('¿Olvidaste tu contraseña? http://app.test/forgot-password')
  })

  it('a password changed from the profile in Spanish, and an admin changing an address in French, write in those languages', async () => {
    const user = await t.createUser({ name: 'Ramón y Cajal' })
    const session = await signInAs(t, { email: user.email, password: STRONG_PASSWORD })
    const newPassword = 'Neurona-Doctrina-1906!'
    const changed = await t.request('PUT', '/api/users/change-password', {
      token: session.accessToken,
      csrf: session.csrfToken,
      headers: { 'accept-language': 'es' },
      body: { currentPassword: STRONG_PASSWORD, newPassword, confirmPassword: newPassword },
    })
    expect(changed.statusCode, changed.body).toBe(200)
    expect((await mailTo(t, user.email)).map((m) => m.subject)).toEqual(['Tu contraseña ha cambiado - Accounts'])

    const admin = await t.signIn({ role: 'ADMIN' })
    const target = await t.createUser({ name: 'Irène Joliot' })
    const newEmail = `moved-${target.email}`
    const edited = await t.request('PUT', `/api/admin/users/${target.id}`, {
      token: admin.accessToken,
      csrf: admin.csrfToken,
      headers: { 'accept-language': 'fr-FR,fr;q=0.9' },
      body: { email: newEmail },
    })
    expect(edited.statusCode, edited.body).toBe(200)
    expect((await mailTo(t, newEmail)).map((m) => m.subject)).toEqual(['Vérifiez votre adresse e-mail - Accounts'])
  })

  it('a language the product does not speak, or a header that makes no sense, gets English', async () => {
    for (const header of ['ja, zh-CN;q=0.8', 'pt-BR', '*;q=0.5, fr;q=0', 'fr;q=2', ';;;,,,', 'x'.repeat(5000)]) {
      const user = await t.createUser({ name: 'Grace Hopper' })
      await t.request('POST', '/api/auth/forgot-password', { body: { email: user.email }, headers: { 'accept-language': header } })
      const [mail] = await mailTo(t, user.email)
      expect(mail?.subject, header.slice(0, 40)).toBe('Reset your password - Accounts')
      expect(mail!.text).toContain('Hello Grace Hopper,')
    }
    const visitor = newVisitor()
    await register(t, visitor)
    expect((await mailTo(t, visitor.email)).map((m) => m.subject)).toEqual(['Verify your email address - Accounts'])
  })

  it('weighs the languages a browser lists: the most wanted one the product speaks', async () => {
    const cases: [string, string][] = [
      ['en;q=0.5, fr;q=0.8', 'Réinitialisez votre mot de passe - Accounts'],
      ['ja, de;q=0.7, es;q=0.7', 'Setzen Sie Ihr Passwort zurück - Accounts'],
      ['it, es-AR;q=0.9, en;q=0.1', 'Restablece tu contraseña - Accounts'],
      ['fr-CA', 'Réinitialisez votre mot de passe - Accounts'],
      ['DE', 'Setzen Sie Ihr Passwort zurück - Accounts'],
    ]
    for (const [header, subject] of cases) {
      const user = await t.createUser()
      await forgotPassword(t, user.email, undefined)
      await t.request('POST', '/api/auth/forgot-password', { body: { email: user.email }, headers: { 'accept-language': header } })
      // One mail per request; the queue may deliver the two in either order.
      const subjects = (await mailTo(t, user.email)).map((m) => m.subject)
      expect(subjects.sort(), header).toEqual(['Reset your password - Accounts', subject].sort())
    }
  })
})

describe('e-mails carry the product name APP_NAME, through a real SMTP server', () => {
  const { t, smtp } = useMailboxTestApp({ APP_NAME: 'Acme Portal' })

  it('in the subject, the sender and the signature; the HTML part in the same language as the text', async () => {
    const visitor = newVisitor({ name: 'Émilie du Châtelet' })
    await register(t, visitor, { headers: { 'accept-language': 'fr' } })
    await t.deliverMail()
    const mail = await smtp.next(visitor.email)
    expect(mail.subject).toBe('Vérifiez votre adresse e-mail - Acme Portal')
    expect(mail.email.from).toMatchObject({ address: 'no-reply@localhost', name: 'Acme Portal' })
    expect(mail.text).toContain('Merci de vous être inscrit sur Acme Portal.')
    expect(mail.text.trimEnd().endsWith('-- Acme Portal')).toBe(true)
    expect(mail.html).toContain('<html lang="fr">')
    expect(mail.html).toContain('Bonjour Émilie du Châtelet,')
    expect(mail.html).toContain('Ou copiez cette adresse dans votre navigateur :')
    expect(mail.html).toContain('Vérifier l&#39;adresse e-mail')
    expect(mail.html).not.toMatch(/Hello|copy this address/)
  })
})
