import type { AuthenticationResponseJSON } from '@simplewebauthn/server'
import type { Language } from '~shared/constants'
import { adminRuleMessages } from '~shared/schemas/admin'
import { deleteAccountMessages } from '~shared/schemas/own-data'
import { NO_PASSWORD } from '~server/auth/password'
import { hashRecoveryCode } from '~server/auth/recovery-codes'
import type { AuthState } from '~server/auth/session-check'
import { revokeUserSessions } from '~server/auth/sessions'
import { acceptedTotpStep } from '~server/auth/totp'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { deleteAccountAppData, deleteAccountRow, detachActivity } from '~server/data/own-data/account-deletion'
import { recordPasskeyUse } from '~server/data/passkeys/passkeys'
import { claimTotpStep, findTotp, hasUnusedRecoveryCode, useRecoveryCode } from '~server/data/two-factor/second-factors'
import { findCredentialsByEmail, lockUserRow } from '~server/data/users/users'
import { conflict, fieldErrors, forbidden, type HttpError, unauthorized } from '~server/http/errors'
import { RULES } from '~server/rate-limit/rules'
import { checkPasskeyConfirmation, type PasskeyProof, passkeyRejected } from '~server/use-cases/passkeys/passkey-confirmation'

/**
 * A person deletes their own account (contract section 15, docs/decisions/0561).
 *
 * Proof first: the password, or a passkey's answer to the owner's confirmation challenge (which
 * counts as two factors, as at sign-in); with the password, an account with two-factor on also
 * gives its authenticator app's code or a recovery code. Every attempt counts against the budget
 * for guessing the password from a session (`changePasswordByUser`), and that budget is not given
 * back by a right password: a wrong code after it still counts. Each failure is recorded and says
 * what was wrong: 400 "Current password is incorrect", 400 "Invalid code" (missing or wrong), or
 * the passkey's 400. An ADMIN is refused before anything is asked (403 "Admin users cannot be
 * deleted"): another admin changes their role first, so the last active ADMIN is never at stake.
 *
 * Then one transaction: the entry "Deleted account …" (written while the account exists; its user
 * becomes unknown with the delete, and the entry stays), every session ended (the trigger of
 * migration 0014 ends the provider sessions they signed in and queues the apps' back-channel
 * logouts), every grant and token at every app deleted, the last e-mail queued in the language of
 * the request, the activity entries set free a batch at a time (a long history outlasted one
 * statement's timeout), and the account's row deleted with everything that references it.
 */
export interface DeleteAccountInput extends AuthState {
  password?: string | undefined
  passkeyResponse?: AuthenticationResponseJSON | undefined
  freshSignIn?: true | undefined
  code?: string | undefined
  recoveryCode?: string | undefined
  ip: string
  lang: Language
}

/** How recent a sign-in stands for the password of an account without one (contract section 15). */
const FRESH_SIGN_IN_MS = 5 * 60_000

const wrongPassword = () => fieldErrors([{ field: 'password', message: 'Current password is incorrect' }])
/** Under the field the code was given in (`code` when none was). */
const invalidCode = (input: Pick<DeleteAccountInput, 'recoveryCode'>) =>
  fieldErrors([{ field: input.recoveryCode !== undefined ? 'recoveryCode' : 'code', message: deleteAccountMessages.invalidCode }])

/** The second step's claim, made in the deletion's transaction (so no code is used by a deletion that failed). */
type SecondStep = { kind: 'totp'; step: number } | { kind: 'recovery'; hash: Buffer } | { kind: 'passkey'; proof: PasskeyProof } | { kind: 'none' }

export async function deleteAccount(ctx: AppContext, input: DeleteAccountInput): Promise<void> {
  const { user, ip } = input
  if (user.role === 'ADMIN') throw forbidden(adminRuleMessages.noAdminDelete, 'ADMIN_DELETE')
  await ctx.limiter.consume(RULES.changePasswordByUser, user.id)

  const refuse = async (details: string, error: HttpError): Promise<never> => {
    await commitChange(ctx, (c) => c.record({ userId: user.id, kind: 'other', activity: 'Failed account deletion', details, ip }))
    throw error
  }

  let second: SecondStep
  if (input.passkeyResponse) {
    const proof = await checkPasskeyConfirmation(ctx, { userId: user.id, response: input.passkeyResponse })
    if (!proof) return refuse('Passkey check failed', passkeyRejected())
    second = { kind: 'passkey', proof }
  } else if (input.freshSignIn) {
    // An account without a password (made by an identity provider or a directory) proves itself by
    // having signed in moments ago: a provider or passkey sign-in, the only ways it has.
    const credentials = await findCredentialsByEmail(ctx.db, user.email)
    if (!credentials || credentials.id !== user.id || credentials.password_hash !== NO_PASSWORD) {
      return refuse('Asked without the password', fieldErrors([{ field: 'password', message: deleteAccountMessages.hasPassword }]))
    }
    const session = await ctx.db.selectFrom('sessions').select('created_at').where('id', '=', input.sessionId).executeTakeFirst()
    if (!session || ctx.clock().getTime() - new Date(session.created_at).getTime() > FRESH_SIGN_IN_MS) {
      return refuse('Sign-in not recent', conflict(deleteAccountMessages.signInAgain, 'FRESH_SIGN_IN_REQUIRED'))
    }
    const step = await secondStep(ctx, input)
    if (!step) return refuse('Wrong two-factor code', invalidCode(input))
    second = step
  } else {
    const credentials = await findCredentialsByEmail(ctx.db, user.email)
    if (!credentials || credentials.id !== user.id || !(await ctx.hasher.verify(credentials.password_hash, input.password ?? ''))) {
      return refuse('Wrong current password', wrongPassword())
    }
    const step = await secondStep(ctx, input)
    if (!step) return refuse('Wrong two-factor code', invalidCode(input))
    second = step
  }

  await commitChange(ctx, async (c) => {
    // Locked for the change: a concurrent role change waits, and is seen here.
    const account = await lockUserRow(c.trx, user.id)
    if (!account) throw unauthorized('Your session has ended. Please sign in again.', 'SESSION_ENDED')
    if (account.role === 'ADMIN') throw forbidden(adminRuleMessages.noAdminDelete, 'ADMIN_DELETE')
    if (second.kind === 'totp' && !(await claimTotpStep(c.trx, account.id, second.step))) throw invalidCode(input)
    if (second.kind === 'recovery' && !(await useRecoveryCode(c.trx, account.id, second.hash, c.now))) throw invalidCode(input)
    if (second.kind === 'passkey' && !(await recordPasskeyUse(c.trx, { ...second.proof, now: c.now }))) throw passkeyRejected()

    await c.record({
      userId: account.id,
      kind: 'deleted',
      activity: `Deleted account ${account.name} (${account.email})`,
      details: `role: ${account.role}; deleted by its owner${second.kind === 'passkey' ? ' with a passkey' : input.freshSignIn ? ' after signing in again' : ''}`,
      ip,
    })
    await revokeUserSessions(c.trx, account.id, 'account deleted', c.now)
    await deleteAccountAppData(c.trx, account.id)
    await c.mail({ template: 'account-deleted', lang: input.lang, to: account.email, name: account.name, email: account.email })
    await c.emit('user.deleted', { id: account.id, email: account.email })
    await detachActivity(c.trx, account.id)
    if (!(await deleteAccountRow(c.trx, account.id))) throw unauthorized('Your session has ended. Please sign in again.', 'SESSION_ENDED')
  })
}

/**
 * After the right password: the second step the account asks for, checked now and claimed in the
 * deletion's transaction; `none` when two-factor is off, null when the code is missing or wrong.
 */
async function secondStep(ctx: AppContext, input: DeleteAccountInput): Promise<SecondStep | null> {
  const totp = await findTotp(ctx.db, input.user.id)
  if (!totp?.enabled_at) return { kind: 'none' }
  if (input.code !== undefined) {
    const secret = ctx.totpSealer.open(totp.secret_sealed)
    const step = secret ? acceptedTotpStep(secret, input.code, ctx.clock(), totp.last_used_step) : null
    return step === null ? null : { kind: 'totp', step }
  }
  if (input.recoveryCode !== undefined) {
    const hash = hashRecoveryCode(input.recoveryCode)
    return (await hasUnusedRecoveryCode(ctx.db, input.user.id, hash)) ? { kind: 'recovery', hash } : null
  }
  return null
}
