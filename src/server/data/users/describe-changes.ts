import type { Role, Status } from '~shared/constants'
import type { FieldChange } from '~shared/schemas/lists'
import type { UserRecord } from './users'

/**
 * What an edit really changes, for the update and for its activity entry: fields sent with the
 * value they already have are no change. Details read "role: CLIENT → MODERATOR; status: ACTIVE →
 * SUSPENDED", and `changes` says the same field by field for the API (decision 0117). Phone numbers
 * are not written into the log (staff roles read it): only that the phone changed.
 */
export interface EditableFields {
  name?: string | undefined
  email?: string | undefined
  phone?: string | null | undefined
  role?: Role | undefined
  status?: Status | undefined
}

export interface DescribedChanges {
  fields: (keyof EditableFields)[]
  values: EditableFields
  details: string | null
  changes: FieldChange[]
}

const ORDER = ['role', 'status', 'name', 'email', 'phone'] as const

export function describeChanges(current: Pick<UserRecord, (typeof ORDER)[number]>, requested: EditableFields): DescribedChanges {
  const fields: (keyof EditableFields)[] = []
  const values: EditableFields = {}
  const parts: string[] = []
  const changes: FieldChange[] = []
  for (const field of ORDER) {
    const next = requested[field]
    if (next === undefined || next === current[field]) continue
    fields.push(field)
    Object.assign(values, { [field]: next })
    parts.push(field === 'phone' ? 'phone changed' : `${field}: ${current[field]} → ${next}`)
    changes.push(field === 'phone' ? { field, from: null, to: null } : { field, from: current[field], to: next as string })
  }
  return { fields, values, details: parts.length > 0 ? parts.join('; ') : null, changes }
}
