import { type ActivityActor, APPLICATION_CHANGED_FIELDS, type FieldChange } from '~shared/schemas/lists'
import { type I18n, useI18n } from '~web/lib/i18n'

/**
 * What an admin's entry adds to an activity item: who acted ("by Ada Admin", everywhere the entry
 * shows, so one entry reads the same in every log) and, for an edit, each changed field from what
 * to what, in the interface language (roles and statuses translated; a phone number's values are
 * never sent).
 */
export function ActorLine({ actor }: { actor: ActivityActor }) {
  const { t } = useI18n()
  return <p className="text-sm text-muted">{t('audit.by', { name: actor.name })}</p>
}

const isApplicationField = (field: FieldChange['field']): field is (typeof APPLICATION_CHANGED_FIELDS)[number] =>
  (APPLICATION_CHANGED_FIELDS as readonly string[]).includes(field)

/** The changed field's name: a user's, or an application's. */
function fieldLabel(field: FieldChange['field'], { t }: Pick<I18n, 't'>): string {
  return isApplicationField(field) ? t(`applications.fields.${field}`) : t(`users.${field}`)
}

function valueText(change: FieldChange, value: string | null, { t }: Pick<I18n, 't'>): string {
  if (value === null) return ''
  if (change.field === 'role' && ['ADMIN', 'DEVELOPER', 'MODERATOR', 'CLIENT'].includes(value)) return t(`roles.${value as 'ADMIN'}`)
  if (change.field === 'status' && ['ACTIVE', 'INACTIVE', 'SUSPENDED'].includes(value)) return t(`statuses.${value as 'ACTIVE'}`)
  return value
}

/**
 * One line per change. Not a list: the entry is itself an item of a list, and pages count an
 * entry's items. Each line ends with a separator a screen reader reads as a pause.
 */
export function ChangeList({ changes }: { changes: FieldChange[] }) {
  const i18n = useI18n()
  const { t } = i18n
  return (
    <p data-changes className="text-sm text-muted">
      <span className="sr-only">{t('audit.changes')}: </span>
      {changes.map((change, index) => (
        <span key={change.field} className="block break-words">
          <span className="font-medium text-fg">{fieldLabel(change.field, i18n)}</span>
          {': '}
          {change.from === null && change.to === null ? (
            t('audit.changed')
          ) : (
            <>
              <span>{valueText(change, change.from, i18n)}</span> <span aria-hidden>→</span>
              <span className="sr-only"> {t('audit.to')}</span> <span>{valueText(change, change.to, i18n)}</span>
            </>
          )}
          {index < changes.length - 1 ? <span className="sr-only">; </span> : null}
        </span>
      ))}
    </p>
  )
}
