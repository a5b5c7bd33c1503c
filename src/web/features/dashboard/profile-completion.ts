import type { User } from '~shared/schemas/user'

type CompletionFields = Pick<User, 'phone' | 'profilePicture'>

/** What a profile still lacks, in the order the hint names them. */
export function missingFromProfile(user: CompletionFields): Array<'phone' | 'picture'> {
  return [...(user.phone?.trim() ? [] : (['phone'] as const)), ...(user.profilePicture ? [] : (['picture'] as const))]
}

/** Profile completion: 50% with neither phone nor picture, 75% with one, 100% with both. */
export function profileCompletion(user: CompletionFields): 50 | 75 | 100 {
  const missing = missingFromProfile(user).length
  return missing === 0 ? 100 : missing === 1 ? 75 : 50
}

/** The hint under the completion bar: it names only what is missing (none at 100%). */
export function completionHintKey(user: CompletionFields) {
  const missing = missingFromProfile(user)
  if (missing.length === 2) return 'dashboard.completionHint' as const
  if (missing[0] === 'phone') return 'dashboard.completionHintPhone' as const
  if (missing[0] === 'picture') return 'dashboard.completionHintPicture' as const
  return null
}
