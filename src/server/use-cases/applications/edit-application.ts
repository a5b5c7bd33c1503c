import { type Application, type ApplicationUpdate, applicationMessages, PERSON_SIGN_IN_APPLICATION_FIELDS } from '~shared/schemas/applications'
import { commitChange } from '~server/change'
import type { AppContext } from '~server/context'
import { deleteApplicationPayloads, TOKEN_MODELS, toApplication, updateApplication } from '~server/data/applications/applications'
import { describeApplicationChanges } from '~server/data/applications/describe-application-changes'
import { fieldErrors } from '~server/http/errors'
import { type ApplicationAction, lockExistingApplication } from './application-rules'
import { stillActiveAdmin } from '~server/use-cases/users/admin-rules'

/**
 * An admin's edit of an application. Its type cannot change (a public app has no secret to hold,
 * a confidential one's callers hold one). Disabling it deletes its codes, access and refresh
 * tokens in the same transaction (the protocol engine also refuses a disabled application); the
 * grants stay, so that enabling it again does not ask everyone's consent again.
 */
/** A service application has no person sign-in settings; the others have no scopes. */
function refuseFieldsOfOtherType(type: Application['type'], requested: ApplicationUpdate): void {
  if (type === 'service') {
    const field = PERSON_SIGN_IN_APPLICATION_FIELDS.find((name) => requested[name] !== undefined)
    if (field) throw fieldErrors([{ field, message: applicationMessages.notForService }])
  } else if (requested.scopes !== undefined) {
    throw fieldErrors([{ field: 'scopes', message: applicationMessages.scopesOnlyForService }])
  }
}

export async function editApplication(ctx: AppContext, action: ApplicationAction, id: string, requested: ApplicationUpdate): Promise<Application> {
  return commitChange(ctx, async (c) => {
    await stillActiveAdmin(c.trx, action.actorId)
    const current = await lockExistingApplication(c.trx, id)
    if (requested.type !== undefined && requested.type !== current.type) throw fieldErrors([{ field: 'type', message: applicationMessages.typeFixed }])
    refuseFieldsOfOtherType(current.type, requested)
    // Without redirect URIs, an application signs people in only on their devices.
    const redirectUris = requested.redirectUris ?? current.redirect_uris
    if (current.type !== 'service' && redirectUris.length === 0 && !(requested.deviceFlow ?? current.device_flow)) {
      throw fieldErrors([{ field: 'redirectUris', message: applicationMessages.redirectUrisMin }])
    }
    const described = describeApplicationChanges(current, requested)
    if (described.changes.length === 0) return toApplication(current)

    const updated = await updateApplication(c.trx, id, described.values, c.now)
    if (described.values.enabled === false) await deleteApplicationPayloads(c.trx, id, TOKEN_MODELS)
    await c.record({
      userId: action.actorId,
      kind: 'applications',
      activity: `Changed application ${current.name}`,
      // The client id first, so that a search of the log for it finds every entry of the application.
      details: `${current.id}; ${described.details}`,
      changes: described.changes,
      ip: action.ip,
    })
    const application = toApplication(updated)
    await c.emit('application.updated', { application, changes: described.changes.map((change) => change.field) })
    return application
  })
}
