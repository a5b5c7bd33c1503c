import { expect, test } from 'vitest'
import { profileCompletion } from '~web/features/dashboard/profile-completion'

test('profile completion is 50% with neither phone nor picture, 75% with one, 100% with both', () => {
  expect(profileCompletion({ phone: null, profilePicture: null })).toBe(50)
  expect(profileCompletion({ phone: '   ', profilePicture: null })).toBe(50)
  expect(profileCompletion({ phone: '+33 1 23 45 67 89', profilePicture: null })).toBe(75)
  expect(profileCompletion({ phone: null, profilePicture: '/api/users/pictures/abc.webp' })).toBe(75)
  expect(profileCompletion({ phone: '555-0100', profilePicture: '/api/users/pictures/abc.webp' })).toBe(100)
})
