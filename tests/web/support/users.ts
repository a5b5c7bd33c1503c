import type { User } from '~shared/schemas/user'

let counter = 0

/** A user as the API answers it; override what the test is about. */
export function makeUser(overrides: Partial<User> = {}): User {
  counter += 1
  return {
    id: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
    name: `User ${counter}`,
    email: `user${counter}@example.com`,
    phone: null,
    role: 'CLIENT',
    status: 'ACTIVE',
    emailVerified: true,
    profilePicture: null,
    createdAt: '2026-01-15T10:00:00.000Z',
    updatedAt: '2026-02-01T10:00:00.000Z',
    ...overrides,
  }
}
