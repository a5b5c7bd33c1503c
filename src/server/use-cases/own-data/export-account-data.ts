import type { AccountExport } from '~shared/schemas/own-data'
import type { AuthState } from '~server/auth/session-check'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { listConnectedApps } from '~server/data/applications/connected-apps'
import { activityBatches, sessionBatches, twoFactorState } from '~server/data/own-data/account-data'
import { listUserPasskeys, toPasskey } from '~server/data/passkeys/passkeys'
import { findPicture } from '~server/data/profile/pictures'
import { findAdminUserById, toAdminUser } from '~server/data/users/users'
import { unauthorized } from '~server/http/errors'
import { listMyIdentities } from '~server/use-cases/identity-providers/linked-identities'

/**
 * "Download your data" (contract section 15): everything the product keeps about the caller in one
 * JSON document, `{ exportedAt, user, picture, sessions, activity, identities, passkeys, twoFactor,
 * connectedApps }`, in the shape `~shared/schemas/own-data` writes down (and
 * docs/account-export.schema.json publishes). No secret of any kind: no query behind it selects a
 * hash, a token, a sealed secret, a key or a credential id.
 *
 * The document is written piece by piece as it is read (docs/decisions/0560): the small parts
 * first, then the sessions and the activity entries a batch at a time, each handed on before the
 * next is read, so that an account with 100,000 entries downloads with the memory of one batch.
 * It is indented, for a person to read as well as a program.
 *
 * "Downloaded account data" is written before the first byte, in a transaction of its own (the
 * export writes nothing else): a download cannot escape the log by being cut short, and the
 * document lists its own entry.
 */
export interface AccountExportFile {
  filename: string
  /** The document, piece by piece. */
  body: AsyncGenerator<string>
}

/** The parts of the document read before it starts: small, whatever the account's history. */
type Head = Omit<AccountExport, 'sessions' | 'activity'>

export async function exportAccountData(ctx: AppContext, input: AuthState & { ip: string }): Promise<AccountExportFile> {
  const { user, sessionId, ip } = input
  const now = ctx.clock()
  await commitChange(ctx, (c) => c.record({ userId: user.id, kind: 'other', activity: 'Downloaded account data', ip }))
  const row = await findAdminUserById(ctx.db, user.id)
  if (!row) throw unauthorized('Your session has ended. Please sign in again.', 'SESSION_ENDED')
  const picture = row.picture_id ? await findPicture(ctx.db, row.picture_id) : undefined
  const head: Head = {
    exportedAt: now.toISOString(),
    user: toAdminUser(row),
    picture: picture ? `data:${picture.content_type};base64,${picture.data.toString('base64')}` : null,
    identities: await listMyIdentities(ctx, user.id),
    passkeys: (await listUserPasskeys(ctx.db, user.id)).map(toPasskey),
    twoFactor: await twoFactorState(ctx.db, user.id),
    connectedApps: await listConnectedApps(ctx.db, user.id),
  }
  return {
    filename: `accounts-export-${now.toISOString().slice(0, 10)}.json`,
    body: writeDocument(head, sessionBatches(ctx.db, user.id, sessionId), activityBatches(ctx.db, user.id)),
  }
}

/** A value at the document's second level: indented by two spaces, its own lines by two more. */
const member = (key: string, value: unknown) => `  ${JSON.stringify(key)}: ${JSON.stringify(value, null, 2).replace(/\n/g, '\n  ')}`

/** An element of a top-level array, indented by four spaces. */
const element = (value: unknown) => `    ${JSON.stringify(value, null, 2).replace(/\n/g, '\n    ')}`

/** The document, in the contract's order of keys; each array's elements are written as their batches arrive. */
async function* writeDocument(head: Head, sessions: AsyncGenerator<unknown[]>, activity: AsyncGenerator<unknown[]>): AsyncGenerator<string> {
  yield `{\n${member('exportedAt', head.exportedAt)},\n${member('user', head.user)},\n${member('picture', head.picture)},\n`
  yield* array('sessions', sessions)
  yield ',\n'
  yield* array('activity', activity)
  yield `,\n${member('identities', head.identities)},\n${member('passkeys', head.passkeys)},\n${member('twoFactor', head.twoFactor)},\n${member('connectedApps', head.connectedApps)}\n}\n`
}

async function* array(key: string, batches: AsyncGenerator<unknown[]>): AsyncGenerator<string> {
  let first = true
  try {
    yield `  ${JSON.stringify(key)}: [`
    for await (const batch of batches) {
      let text = ''
      for (const item of batch) {
        text += `${first ? '\n' : ',\n'}${element(item)}`
        first = false
      }
      yield text
    }
    yield first ? ']' : '\n  ]'
  } finally {
    // Stopped early (the download went away): the reading stops with it.
    await batches.return(undefined)
  }
}
