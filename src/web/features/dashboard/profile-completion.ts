import type { User } from '~shared/schemas/user'

/** Profile completion: 50% with neither phone nor picture, 75% with one, 100% with both. */
export function profileCompletion(user: Pick<User, 'phone' | 'profilePicture'>): 50 | 75 | 100 {
  const filled = [user.phone?.trim(), user.profilePicture].filter(Boolean).length
  return filled === 2 ? 100 : filled === 1 ? 75 : 50
}
