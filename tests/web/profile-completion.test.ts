import { expect, test } from 'vitest'
import { completionHintKey, profileCompletion } from '~web/features/dashboard/profile-completion'

test('profile completion is 50% with neither phone nor picture, 75% with one, 100% with both', () => {
  expect(profileCompletion({ phone: null, profilePicture: null })).toBe(50)
  expect(profileCompletion({ phone: '   ', profilePicture: null })).toBe(50)
  expect(profileCompletion({ phone: '+33 1 23 45 67 89', profilePicture: null })).toBe(75)
  expect(profileCompletion({ phone: null, profilePicture: '/api/users/pictures/abc.webp' })).toBe(75)
  expect(profileCompletion({ phone: '555-0100', profilePicture: '/api/users/pictures/abc.webp' })).toBe(100)
})

test('the hint names only what is missing: both, the phone, the picture, or nothing at 100%', () => {
  expect(completionHintKey({ phone: null, profilePicture: null })).toBe('dashboard.completionHint')
  expect(completionHintKey({ phone: '  ', profilePicture: '/api/users/pictures/abc.webp' })).toBe('dashboard.completionHintPhone')
  expect(completionHintKey({ phone: '+33 1 23 45 67 89', profilePicture: null })).toBe('dashboard.completionHintPicture')
  expect(completionHintKey({ phone: '555-0100', profilePicture: '/api/users/pictures/abc.webp' })).toBeNull()
})
