import type { ApplicationUpdate } from '~shared/schemas/applications'
import type { FieldChange } from '~shared/schemas/lists'
import type { ApplicationRecord, ApplicationValues } from './applications'

/**
 * What an edit of an application really changes, for the update and for its activity entry, as
 * `describeChanges` does for a user (decision 0117): a field sent with the value it already has is
 * no change. Lists are compared as sets (redirect URIs in another order are the same ones) and
 * written out joined by ", ". Nothing secret is among these fields.
 */
export type ApplicationChangeValues = Partial<ApplicationValues & { enabled: boolean }>

export interface DescribedApplicationChanges {
  values: ApplicationChangeValues
  details: string | null
  changes: FieldChange[]
}

type Field = Exclude<keyof ApplicationUpdate, 'type'>

const COLUMNS = {
  name: 'name',
  redirectUris: 'redirect_uris',
  postLogoutRedirectUris: 'post_logout_redirect_uris',
  backchannelLogoutUri: 'backchannel_logout_uri',
  allowedRoles: 'allowed_roles',
  firstParty: 'first_party',
  deviceFlow: 'device_flow',
  enabled: 'enabled',
  scopes: 'scopes',
} as const satisfies Record<Field, keyof ApplicationRecord>

type Value = string | string[] | boolean | null

const text = (value: Value): string | null => (value === null ? null : Array.isArray(value) ? value.join(', ') : String(value))

function same(a: Value, b: Value): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item) => b.includes(item))
  return a === b
}

export function describeApplicationChanges(current: ApplicationRecord, requested: ApplicationUpdate): DescribedApplicationChanges {
  const values: ApplicationChangeValues = {}
  const parts: string[] = []
  const changes: FieldChange[] = []
  for (const [field, column] of Object.entries(COLUMNS) as [Field, (typeof COLUMNS)[Field]][]) {
    const next = requested[field]
    const before = current[column] as Value
    if (next === undefined || same(before, next)) continue
    Object.assign(values, { [column]: next })
    parts.push(`${field}: ${text(before) ?? '(none)'} → ${text(next) ?? '(none)'}`)
    changes.push({ field, from: text(before), to: text(next) })
  }
  return { values, details: parts.length > 0 ? parts.join('; ') : null, changes }
}
