import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, test } from 'vitest'
import { ProfilePage } from '~web/features/profile/components/profile-page'
import { session } from '~web/lib/session'
import { fail, installFakeApi, ok } from './support/fake-api'
import { fieldError, toastTexts } from './support/queries'
import { renderApp } from './support/render-app'
import { makeUser } from './support/users'

const me = makeUser({ name: 'Ann Smith', email: 'ann@example.com', phone: '555-0100' })

function renderProfile(api = installFakeApi()) {
  api.on('GET /users/profile', ok(me))
  // The Security tab's two-factor, passkey, linked sign-in methods, devices and connected apps sections read their state too.
  api.on('GET /auth/mfa', ok({ totp: false, recoveryCodesLeft: 0, passkeys: 0 }))
  api.on('GET /auth/passkeys', ok({ passkeys: [] }))
  api.on('GET /auth/identities', ok({ identities: [], hasPassword: true }))
  api.on('GET /auth/identity-providers', ok({ identityProviders: [] }))
  api.on('GET /auth/sessions', ok({ sessions: [] }))
  api.on('GET /auth/applications', ok({ applications: [] }))
  return { api, ...renderApp(<ProfilePage />, { url: '/profile', user: me }) }
}

const pictureInput = () => document.querySelector('input[type="file"]') as HTMLInputElement

describe('profile tab', () => {
  test('shows the name, a disabled e-mail with its note, the phone and the creation date', async () => {
    renderProfile()
    expect((screen.getByLabelText('Full Name') as HTMLInputElement).value).toBe('Ann Smith')
    const email = screen.getByLabelText('Email') as HTMLInputElement
    expect(email.disabled).toBe(true)
    expect(email.value).toBe('ann@example.com')
    expect(document.getElementById(email.getAttribute('aria-describedby')!)!.textContent).toBe(
      'Email cannot be changed. Please contact an administrator if it needs to change.',
    )
    expect((screen.getByLabelText(/^Phone/) as HTMLInputElement).value).toBe('555-0100')
    expect((screen.getByLabelText('Account Created') as HTMLInputElement).disabled).toBe(true)
  })

  test('name messages from the shared schema, then an update sends name and phone', async () => {
    const { api, user } = renderProfile()
    api.on('PUT /users/profile', (request) => ok({ ...me, ...(request.body as object) }))
    const name = screen.getByLabelText('Full Name')
    await user.clear(name)
    await user.type(name, 'A')
    await user.click(screen.getByRole('button', { name: 'Update Profile' }))
    await waitFor(() => expect(fieldError('Full Name')).toBe('Name must be at least 2 characters'))
    await user.type(name, 'x'.repeat(50))
    await waitFor(() => expect(fieldError('Full Name')).toBe('Name must be less than 50 characters'))
    expect(api.callsTo('PUT /users/profile')).toHaveLength(0)

    await user.clear(name)
    await user.type(name, 'Ann Jones')
    await user.clear(screen.getByLabelText(/^Phone/))
    await user.click(screen.getByRole('button', { name: 'Update Profile' }))
    await waitFor(() => expect(toastTexts()).toEqual(['Profile updated successfully']))
    expect(api.callsTo('PUT /users/profile')[0]!.body).toEqual({ name: 'Ann Jones', phone: null })
    expect(session.get().user?.name).toBe('Ann Jones')
  })

  test('a failed update shows the server message, else the fallback', async () => {
    const { api, user } = renderProfile()
    api.on('PUT /users/profile', { status: 500 })
    await user.click(screen.getByRole('button', { name: 'Update Profile' }))
    await waitFor(() => expect(toastTexts()).toEqual(['Failed to update profile']))
  })
})

describe('profile picture', () => {
  test('refuses a file that is not an image', async () => {
    const { api } = renderProfile()
    fireEvent.change(pictureInput(), { target: { files: [new File(['hello'], 'notes.txt', { type: 'text/plain' })] } })
    expect((await screen.findByRole('alert')).textContent).toBe('Please select a valid image file')
    expect(api.callsTo('POST /users/profile-picture')).toHaveLength(0)
  })

  test('refuses an image of 5 MB or more', async () => {
    const { api } = renderProfile()
    const big = new File([new Uint8Array(5 * 1024 * 1024)], 'big.png', { type: 'image/png' })
    fireEvent.change(pictureInput(), { target: { files: [big] } })
    expect((await screen.findByRole('alert')).textContent).toBe('Image size must be less than 5MB')
    expect(api.callsTo('POST /users/profile-picture')).toHaveLength(0)
  })

  test('says when the file cannot be read', async () => {
    const { api } = renderProfile()
    const original = FileReader.prototype.readAsDataURL
    FileReader.prototype.readAsDataURL = function fail(this: FileReader) {
      setTimeout(() => this.onerror?.(new ProgressEvent('error') as ProgressEvent<FileReader>))
    }
    try {
      fireEvent.change(pictureInput(), { target: { files: [new File(['x'], 'a.png', { type: 'image/png' })] } })
      expect((await screen.findByRole('alert')).textContent).toBe('Failed to read image file')
    } finally {
      FileReader.prototype.readAsDataURL = original
    }
    expect(api.callsTo('POST /users/profile-picture')).toHaveLength(0)
  })

  test('uploads an image as a data URL and shows the new picture', async () => {
    const { api } = renderProfile()
    api.on('POST /users/profile-picture', ok({ ...me, profilePicture: '/api/users/pictures/new.webp' }))
    fireEvent.change(pictureInput(), { target: { files: [new File([new Uint8Array([137, 80, 78, 71])], 'me.png', { type: 'image/png' })] } })
    await waitFor(() => expect(toastTexts()).toEqual(['Profile picture updated successfully']))
    expect(api.callsTo('POST /users/profile-picture')[0]!.body).toEqual({ profilePicture: 'data:image/png;base64,iVBORw==' })
    expect(screen.getByRole('img', { name: 'Profile picture of Ann Smith' }).getAttribute('src')).toBe('/api/users/pictures/new.webp')
  })

  test('a refused upload shows the server message', async () => {
    const { api } = renderProfile()
    api.on('POST /users/profile-picture', fail(400, 'Please select a valid image file'))
    fireEvent.change(pictureInput(), { target: { files: [new File(['<svg/>'], 'x.png', { type: 'image/png' })] } })
    await waitFor(() => expect(toastTexts()).toEqual(['Please select a valid image file']))
  })
})

describe('security tab', () => {
  async function openSecurity() {
    const rendered = renderProfile()
    await rendered.user.click(screen.getByRole('tab', { name: 'Security' }))
    return rendered
  }

  test('three password fields, each with its own show/hide toggle', async () => {
    const { user } = await openSecurity()
    const panel = screen.getByRole('tabpanel')
    const toggles = within(panel).getAllByRole('button', { name: 'Show password' })
    expect(toggles).toHaveLength(3)
    await user.click(toggles[1]!)
    expect(screen.getByLabelText('New Password').getAttribute('type')).toBe('text')
    expect(screen.getByLabelText('Current Password').getAttribute('type')).toBe('password')
  })

  test('the spec messages, then the change', async () => {
    const { api, user } = await openSecurity()
    api.on('PUT /users/change-password', ok(undefined, 'Password changed successfully'))
    await user.click(screen.getByRole('button', { name: 'Change Password' }))
    await waitFor(() => expect(fieldError('Current Password')).toBe('Current password is required'))
    expect(fieldError('New Password')).toBe('Password must be at least 8 characters')

    await user.type(screen.getByLabelText('Current Password'), 'Old-Pass-11!')
    await user.type(screen.getByLabelText('New Password'), 'Blue-Otter-93!')
    await user.type(screen.getByLabelText('Confirm New Password'), 'Blue-Otter-39!')
    await waitFor(() => expect(fieldError('Confirm New Password')).toBe("Passwords don't match"))

    await user.clear(screen.getByLabelText('Confirm New Password'))
    await user.type(screen.getByLabelText('Confirm New Password'), 'Blue-Otter-93!')
    await user.click(screen.getByRole('button', { name: 'Change Password' }))
    await waitFor(() => expect(toastTexts()).toEqual(['Password changed successfully']))
    expect(api.callsTo('PUT /users/change-password')[0]!.body).toEqual({
      currentPassword: 'Old-Pass-11!',
      newPassword: 'Blue-Otter-93!',
      confirmPassword: 'Blue-Otter-93!',
    })
    expect((screen.getByLabelText('Current Password') as HTMLInputElement).value).toBe('')
  })

  test('a wrong current password is shown under that field', async () => {
    const { api, user } = await openSecurity()
    // The server's answer: a field error under currentPassword (tests/api/profile.test.ts).
    const wrongPassword = { code: 'VALIDATION_ERROR', errors: [{ field: 'currentPassword', message: 'Current password is incorrect' }] }
    api.on('PUT /users/change-password', fail(400, 'Current password is incorrect', wrongPassword))
    await user.type(screen.getByLabelText('Current Password'), 'Wrong-Pass-1!')
    await user.type(screen.getByLabelText('New Password'), 'Blue-Otter-93!')
    await user.type(screen.getByLabelText('Confirm New Password'), 'Blue-Otter-93!')
    await user.click(screen.getByRole('button', { name: 'Change Password' }))
    await waitFor(() => expect(fieldError('Current Password')).toBe('Current password is incorrect'))
  })
})
