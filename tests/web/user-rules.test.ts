import { describe, expect, test } from 'vitest'
import { adminRuleMessages } from '~shared/schemas/admin'
import { deleteBlockedReason, editBlockedReason, roleChangeBlockedReason } from '~web/features/admin-users/user-rules'
import { makeUser } from './support/users'

const admin = makeUser({ role: 'ADMIN' })
const moderator = makeUser({ role: 'MODERATOR' })

describe("the admin's edit and delete rules, as reasons", () => {
  test('edit', () => {
    expect(editBlockedReason(admin, admin)).toBe(adminRuleMessages.noSelfEdit)
    expect(editBlockedReason(moderator, makeUser({ role: 'ADMIN' }))).toBe(adminRuleMessages.noEditOtherAdmins)
    expect(editBlockedReason(admin, makeUser({ role: 'ADMIN' }))).toBeNull()
    expect(editBlockedReason(admin, makeUser())).toBeNull()
  })

  test('role change', () => {
    expect(roleChangeBlockedReason(admin, admin)).toBe(adminRuleMessages.noOwnRole)
    expect(roleChangeBlockedReason(moderator, makeUser({ role: 'ADMIN' }))).toBe(adminRuleMessages.adminRoleLocked)
    expect(roleChangeBlockedReason(admin, makeUser({ role: 'ADMIN' }))).toBeNull()
  })

  test('delete', () => {
    expect(deleteBlockedReason(admin, { ...admin, status: 'INACTIVE' })).toBe(adminRuleMessages.noSelfDelete)
    expect(deleteBlockedReason(admin, makeUser({ role: 'ADMIN', status: 'INACTIVE' }))).toBe(adminRuleMessages.noAdminDelete)
    expect(deleteBlockedReason(admin, makeUser({ status: 'SUSPENDED' }))).toBe(adminRuleMessages.inactiveBeforeDelete)
    expect(deleteBlockedReason(admin, makeUser({ status: 'INACTIVE' }))).toBeNull()
  })
})
