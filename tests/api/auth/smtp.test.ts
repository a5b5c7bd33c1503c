import type { Email } from 'postal-mime'
import { describe, expect, it } from 'vitest'
import { useMailboxTestApp } from '../../support/mailbox'
import { APP_ORIGIN, expectFailure, newVisitor, register } from './helpers'

/**
 * Mail through a real SMTP server: the product is configured with SMTP_URL, the test listens on a
 * random local port and reads each message as a mail client would.
 */
describe('e-mail through an SMTP server', () => {
  const { t, smtp } = useMailboxTestApp()

  const inbox = async (address: string) => {
    await t.deliverMail()
    return smtp
      .all()
      .filter((received) => received.to.includes(address.toLowerCase()))
      .map((received) => received.email)
  }

  /** The link in a message: the same in its text and its HTML part, on APP_URL. */
  const linkIn = (mail: Email, page: string): URL => {
    expect(mail.text, 'a text part').toBeTruthy()
    expect(mail.html, 'an HTML part').toBeTruthy()
    const inText = mail
      .text!.match(/https?:\/\/\S+/g)
      ?.map((l) => new URL(l))
      .find((l) => l.pathname === page)
    expect(inText, `${page} link in the text part`).toBeDefined()
    const hrefs = [...mail.html!.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'))
    expect(hrefs).toContain(inText!.toString())
    expect(inText!.origin).toBe(APP_ORIGIN)
    return inText!
  }

  it('delivers the verification e-mail, whose link verifies the account', async () => {
    const visitor = newVisitor({ name: 'Radia Perlman' })
    expect((await register(t, visitor)).statusCode).toBe(201)

    const [mail, ...others] = await inbox(visitor.email)
    expect(others).toEqual([])
    expect(mail!.subject).toBe('Verify your email address - Accounts')
    expect(mail!.from).toMatchObject({ address: 'no-reply@localhost', name: 'Accounts' })
    expect(mail!.to).toEqual([expect.objectContaining({ address: visitor.email })])
    expect(mail!.text).toContain('Hello Radia Perlman,')
    const link = linkIn(mail!, '/verify-email')
    expect(link.searchParams.get('email')).toBe(visitor.email)

    expectFailure(await t.login(visitor.email, visitor.password), 403, 'EMAIL_NOT_VERIFIED')
    const verified = await t.request('GET', `/api/auth/verify-email/${link.searchParams.get('token')}`)
    expect(verified.statusCode).toBe(200)
    expect((await t.login(visitor.email, visitor.password)).statusCode).toBe(200)
    expect(t.outbox()).toEqual([])
  })

  it('delivers the reset e-mail, whose link resets the password, and then the "password changed" e-mail', async () => {
    const user = await t.createUser({ name: 'Barbara Liskov' })
    await t.request('POST', '/api/auth/forgot-password', { body: { email: user.email } })
    const [resetMail] = await inbox(user.email)
    expect(resetMail!.subject).toBe('Reset your password - Accounts')
    const link = linkIn(resetMail!, '/reset-password')

    const password = 'Substitution-Principle-1987!'
    const reset = await t.request('POST', `/api/auth/reset-password/${link.searchParams.get('token')}`, {
      body: { password, confirmPassword: password },
    })
    expect(reset.statusCode).toBe(200)
    expect((await t.login(user.email, password)).statusCode).toBe(200)

    const [, changed, ...others] = await inbox(user.email)
    expect(others).toEqual([])
    expect(changed!.subject).toBe('Your password was changed - Accounts')
    expect(changed!.text).toContain('Hello Barbara Liskov,')
    expect(changed!.html).toContain('Hello Barbara Liskov,')
    linkIn(changed!, '/forgot-password')
  })

  it('shows a name as text in the HTML part, never as markup', async () => {
    const visitor = newVisitor({ name: '<img src=x onerror=alert(1)>' })
    await register(t, visitor)
    const [mail] = await inbox(visitor.email)
    expect(mail!.html).not.toContain('<img')
    expect(mail!.html).toContain('&lt;img src=x onerror=alert(1)&gt;')
  })
})
