import { describe, expect, test } from 'vitest'
import { GOOD_PASSWORD, callApi, uniqueEmail } from './support/accounts'
import { signInThroughPage, storedSession, toast } from './support/browser'
import { browserTests } from './support/fixtures'
import { linkTo } from '../support/mailbox'

/**
 * The signed-out journeys: registering and verifying by the
 * e-mailed link, signing in and coming back to the page first asked for, what the sign-in page
 * says when it cannot sign someone in, the forgotten password, and signing out.
 */
const e2e = browserTests()

/** The redirect after verification and after a reset is 2 s: never sooner than this. */
const NOT_BEFORE_MS = 1_000

describe('registration and sign-in', () => {
  test('a visitor registers, verifies by the e-mailed link, signs in and lands on the page they asked for', async () => {
    const { page } = await e2e.open()
    const email = uniqueEmail('grace')

    await page.goto('/profile')
    await page.waitForURL('**/login')
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    await page.getByRole('link', { name: 'Sign up' }).click()
    await page.waitForURL('**/register')
    await page.getByRole('heading', { name: 'Create an account' }).waitFor()

    // The form checks before it sends.
    await page.getByLabel('Full Name').fill('G')
    await page.getByLabel('Email').fill('not-an-address')
    await page.getByLabel('Password', { exact: true }).fill('short')
    await page.getByLabel('Confirm Password').fill('other')
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.getByText('Name must be at least 2 characters').waitFor()
    await page.getByText('Invalid email address').waitFor()
    await page.getByText('Password must be at least 8 characters').waitFor()
    await page.getByText("Passwords don't match").waitFor()

    await page.getByLabel('Full Name').fill('Grace Hopper')
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Phone').fill('+1 555 0100')
    await page.getByLabel('Password', { exact: true }).fill(GOOD_PASSWORD)
    await page.getByLabel('Confirm Password').fill(GOOD_PASSWORD)
    await page.getByRole('button', { name: 'Create account' }).click()

    await page.waitForURL((url) => url.pathname === '/verify-email' && url.searchParams.get('email') === email)
    await toast(page, 'Registration successful! Please check your email to verify your account.').waitFor()
    await page.getByRole('heading', { name: 'Verify Your Email' }).waitFor()
    const shownEmail = page.getByLabel('Email address')
    expect(await shownEmail.inputValue()).toBe(email)
    expect(await shownEmail.getAttribute('readonly')).not.toBeNull()
    await page.getByRole('link', { name: 'Sign in here' }).waitFor()

    const mail = await e2e.server.mail.next(email, 'Verify your email address - Accounts')
    expect(mail.text).toContain('Hello Grace Hopper,')
    const link = linkTo(mail, '/verify-email')
    expect(link.origin).toBe(e2e.server.url)
    expect(link.searchParams.get('email')).toBe(email)

    // Held for a moment, so the loading view can be seen.
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    await page.route('**/api/auth/verify-email/**', async (route) => {
      await held
      await route.continue()
    })
    await page.goto(link.href)
    await page.getByRole('heading', { name: 'Verifying Email' }).waitFor()
    release()
    await page.getByRole('heading', { name: 'Email Verified!' }).waitFor()
    const verifiedAt = Date.now()
    await page.getByText('Redirecting to login page...').waitFor()
    await toast(page, 'Email verified successfully!').waitFor()
    await page.waitForURL('**/login', { timeout: 15_000 })
    expect(Date.now() - verifiedAt).toBeGreaterThanOrEqual(NOT_BEFORE_MS)
    await page.getByRole('status').filter({ hasText: 'Email verified successfully! Please log in.' }).waitFor()
    await page.unroute('**/api/auth/verify-email/**')

    // Signed out, the page asked for leads to sign-in, and sign-in leads back to it.
    await page.goto('/profile')
    await page.waitForURL('**/login')
    await signInThroughPage(page, { email, password: GOOD_PASSWORD })
    await page.waitForURL('**/profile')
    await toast(page, 'Login successful!').waitFor()
    await page.getByRole('heading', { name: 'Profile', exact: true }).waitFor()
    expect(await page.getByLabel('Full Name').inputValue()).toBe('Grace Hopper')
    expect(await page.getByLabel('Phone').inputValue()).toBe('+1 555 0100')
    expect(await page.getByLabel('Email').inputValue()).toBe(email)
  })

  test('wrong passwords and unknown addresses get the credentials message, and nothing is sent before the fields are valid', async () => {
    const account = await e2e.accounts.create()
    const app = await e2e.open()
    const { page } = app
    app.expectFailedRequests(401)
    let loginCalls = 0
    page.on('request', (request) => {
      if (request.url().endsWith('/api/auth/login')) loginCalls += 1
    })

    await page.goto('/login')
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.getByText('Invalid email address').waitFor()
    await page.getByText('Password is required').waitFor()
    expect(loginCalls).toBe(0)

    const password = page.getByLabel('Password', { exact: true })
    await signInThroughPage(page, { email: account.email, password: 'Wrong-Horse-99!' })
    const credentials = 'Invalid email or password. Please check your credentials and try again.'
    await page.getByRole('alert').filter({ hasText: credentials }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/login')

    // The show/hide toggle reveals what was typed.
    expect(await password.getAttribute('type')).toBe('password')
    await page.getByRole('button', { name: 'Show password' }).click()
    expect(await password.getAttribute('type')).toBe('text')
    await page.getByRole('button', { name: 'Hide password' }).click()
    expect(await password.getAttribute('type')).toBe('password')

    await signInThroughPage(page, { email: uniqueEmail('nobody'), password: GOOD_PASSWORD })
    await page.getByRole('alert').filter({ hasText: credentials }).waitFor()
    expect(loginCalls).toBe(2)
    expect((await storedSession(page)).accessToken).toBeNull()
  })

  test('an unverified address is asked to verify first and can have the link sent again', async () => {
    const account = await e2e.accounts.create({ verified: false })
    const app = await e2e.open()
    const { page } = app
    app.expectFailedRequests(403)

    await page.goto('/login')
    await signInThroughPage(page, account)
    await page.getByRole('alert').filter({ hasText: 'Please verify your email address before logging in. Check your inbox for a verification email.' }).waitFor()
    await page.getByRole('link', { name: 'Resend verification email' }).click()
    await page.waitForURL((url) => url.pathname === '/verify-email' && url.searchParams.get('email') === account.email)
    await page.getByRole('button', { name: 'Resend Verification Email' }).click()
    await toast(page, 'Verification email sent successfully!').waitFor()
    const mail = await e2e.server.mail.next(account.email, 'Verify your email address - Accounts')

    // The new link works, and the account can sign in afterwards.
    await page.goto(linkTo(mail, '/verify-email').href)
    await page.getByRole('heading', { name: 'Email Verified!' }).waitFor()
    await page.waitForURL('**/login', { timeout: 15_000 })
    await signInThroughPage(page, account)
    await page.waitForURL('**/dashboard')
    await page.getByRole('heading', { name: `Welcome back, ${account.name}!` }).waitFor()
  })

  test.each([
    ['SUSPENDED', 'suspended', 'Account Suspended', 'Suspended'],
    ['INACTIVE', 'inactive', 'Account Inactive', 'Inactive'],
  ] as const)('a %s account signing in is sent to the account status page', async (status, query, title, badge) => {
    const account = await e2e.accounts.create({ status })
    const app = await e2e.open()
    const { page } = app
    app.expectFailedRequests(403)

    await page.goto('/login')
    await signInThroughPage(page, account)
    await page.waitForURL((url) => url.pathname === '/account-status' && url.searchParams.get('status') === query && url.searchParams.get('email') === account.email)
    await page.getByRole('heading', { name: title }).waitFor()
    await page.getByText(badge, { exact: true }).waitFor()
    await page.getByText(account.email).waitFor()
    await page.getByRole('heading', { name: 'Contact support' }).waitFor()
    expect((await storedSession(page)).accessToken).toBeNull()

    await page.getByRole('link', { name: 'Go to Home' }).click()
    await page.waitForURL('**/login')
    await page.goBack()
    await page.getByRole('link', { name: 'Back to Login' }).click()
    await page.waitForURL('**/login')
  })
})

describe('forgotten password', () => {
  test('a user who forgot their password resets it by the e-mailed link and signs in with the new one', async () => {
    const account = await e2e.accounts.create()
    const newPassword = 'Copper-Lantern-58?'
    const app = await e2e.open()
    const { page } = app
    app.expectFailedRequests(400, 401)

    await page.goto('/login')
    await page.getByRole('link', { name: 'Forgot password?' }).click()
    await page.waitForURL('**/forgot-password')
    await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor()
    await page.getByLabel('Email').fill(account.email)
    await page.getByRole('button', { name: 'Send reset link' }).click()
    await page.getByRole('heading', { name: 'Check your email' }).waitFor()
    await toast(page, 'Password reset instructions sent to your email').waitFor()
    await page.getByRole('link', { name: 'Back to Login' }).waitFor()
    await page.getByRole('button', { name: 'Try Again' }).click()
    await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor()

    const mail = await e2e.server.mail.next(account.email, 'Reset your password - Accounts')
    const link = linkTo(mail, '/reset-password')
    expect(link.origin).toBe(e2e.server.url)

    await page.goto(link.href)
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor()
    await page.getByLabel('New Password').fill(newPassword)
    await page.getByLabel('Confirm Password').fill('Copper-Lantern-58!')
    await page.getByRole('button', { name: 'Reset password' }).click()
    await page.getByText("Passwords don't match").waitFor()
    await page.getByLabel('Confirm Password').fill(newPassword)
    await page.getByRole('button', { name: 'Reset password' }).click()

    await page.getByRole('heading', { name: 'Password reset' }).waitFor()
    const resetAt = Date.now()
    await page.getByText('Your password has been changed. Redirecting to login page...').waitFor()
    await toast(page, 'Password reset successfully!').waitFor()
    await page.waitForURL('**/login', { timeout: 15_000 })
    expect(Date.now() - resetAt).toBeGreaterThanOrEqual(NOT_BEFORE_MS)
    await page.getByRole('status').filter({ hasText: 'Password reset successfully! Please log in with your new password.' }).waitFor()

    await signInThroughPage(page, account)
    await page.getByRole('alert').filter({ hasText: 'Invalid email or password. Please check your credentials and try again.' }).waitFor()
    await signInThroughPage(page, { email: account.email, password: newPassword })
    await page.waitForURL('**/dashboard')
    await page.getByRole('heading', { name: `Welcome back, ${account.name}!` }).waitFor()

    // The link was for one use only.
    await page.goto(link.href)
    await page.getByLabel('New Password').fill('Velvet-Harbor-41!')
    await page.getByLabel('Confirm Password').fill('Velvet-Harbor-41!')
    await page.getByRole('button', { name: 'Reset password' }).click()
    await page.getByRole('alert').filter({ hasText: 'Invalid or expired reset link' }).waitFor()
    await page.getByRole('alert').getByRole('link', { name: 'Request New Reset' }).waitFor()
  })

  test('a reset address without its token offers to ask for a new one', async () => {
    const { page } = await e2e.open()
    await page.goto('/reset-password')
    await page.getByRole('heading', { name: 'Invalid Reset Link' }).waitFor()
    await page.getByRole('link', { name: 'Request New Reset' }).click()
    await page.waitForURL('**/forgot-password')
    await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor()
  })
})

describe('other signed-out pages', () => {
  test('a verification link that is no longer valid says so, and a page without an address cannot resend', async () => {
    const app = await e2e.open()
    const { page } = app
    app.expectFailedRequests(400)
    await page.goto('/verify-email?token=no-such-token&email=someone%40example.com')
    await page.getByRole('alert').filter({ hasText: 'Email verification failed' }).filter({ hasText: 'Invalid or expired verification link' }).waitFor()
    await page.getByRole('heading', { name: 'Verify Your Email' }).waitFor()

    await page.goto('/verify-email')
    await page.getByRole('button', { name: 'Resend Verification Email' }).click()
    await page.getByRole('alert').filter({ hasText: 'Email address not found. Please register again.' }).waitFor()
  })

  test('access denied, an unknown account status and the debug page speak for themselves', async () => {
    const { page } = await e2e.open()
    await page.goto('/unauthorized')
    await page.getByRole('heading', { name: 'Access Denied' }).waitFor()
    await page.getByText("You don't have permission to access this page.").waitFor()
    await page.getByRole('link', { name: 'Go to Profile' }).waitFor()
    await page.getByRole('link', { name: 'Go to Dashboard' }).click()
    await page.waitForURL('**/login')

    await page.goto('/account-status?status=archived')
    await page.getByRole('heading', { name: 'Account Status Unknown' }).waitFor()
    await page.getByText('Unknown', { exact: true }).waitFor()

    await page.goto('/debug')
    await page.getByRole('heading', { name: 'Auth Debug' }).waitFor()
    expect(await page.getByRole('definition').nth(1).innerText()).toBe('No')

    // Unknown addresses go to the dashboard, which asks a signed-out visitor to sign in.
    await page.goto('/no/such/page')
    await page.waitForURL('**/login')
  })
})

describe('signing out', () => {
  test('logging out clears the stored session, returns to sign-in, and the back button shows nothing of the account', async () => {
    const account = await e2e.accounts.create({ phone: '+44 20 7946 0000' })
    const app = await e2e.open()
    const { page } = app
    app.expectFailedRequests(401)

    await signInThroughPage(page, account)
    await page.waitForURL('**/dashboard')
    await page.getByRole('complementary').getByRole('link', { name: 'Profile' }).click()
    await page.waitForURL('**/profile')
    expect(await page.getByLabel('Phone').inputValue()).toBe('+44 20 7946 0000')
    const before = await storedSession(page)
    expect(before.accessToken && before.refreshToken && before.user).toBeTruthy()

    await page.getByRole('button', { name: `Account menu for ${account.name}` }).click()
    await page.getByRole('menuitem', { name: 'Log out' }).click()
    await page.waitForURL('**/login')
    await toast(page, 'Logged out successfully').waitFor()
    expect(await storedSession(page)).toEqual({ accessToken: null, refreshToken: null, user: null, csrfToken: null })

    await page.goBack()
    await page.waitForURL('**/login')
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    expect(await page.getByText(account.email).count()).toBe(0)
    expect(await page.getByText(account.name).count()).toBe(0)
    expect(await page.getByText('+44 20 7946 0000').count()).toBe(0)

    // The session is over on the server too.
    const after = await callApi(e2e.server, 'GET', '/auth/me', { session: { accessToken: before.accessToken!, csrfToken: before.csrfToken ?? '' } })
    expect(after.status).toBe(401)
    const refreshed = await callApi(e2e.server, 'POST', '/auth/refresh-token', { body: { refreshToken: before.refreshToken } })
    expect(refreshed.status).toBe(401)
  })
})
