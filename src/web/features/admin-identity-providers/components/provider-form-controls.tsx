import { useId } from 'react'
import Plus from 'lucide-react/icons/plus'
import Trash2 from 'lucide-react/icons/trash-2'
import { ROLES, type Role } from '~shared/constants'
import { DEFAULT_SAML_EMAIL_ATTRIBUTES, DEFAULT_SAML_NAME_ATTRIBUTES, type RoleRule } from '~shared/schemas/identity-providers'
import { Alert } from '~web/components/ui/alert'
import { Button } from '~web/components/ui/button'
import { Field } from '~web/components/ui/field'
import { controlClass, Input, Select } from '~web/components/ui/input'
import { useI18n } from '~web/lib/i18n'
import { cn } from '~web/lib/cn'

/** The sign-in method form's own controls: a field's message, a URL input, a checkbox with its hint, the role rules, SAML's fields. */

export function FieldMessage({ message }: { message: string }) {
  const { tm } = useI18n()
  return <p className="text-sm text-danger dark:text-red-400">{tm(message)}</p>
}

export function UrlInput({
  field,
  value,
  placeholder,
  onChange,
  ...wired
}: {
  field: string
  value: string
  placeholder?: string
  onChange: (value: string) => void
  id?: string
  'aria-invalid'?: boolean
  'aria-describedby'?: string
}) {
  return (
    <Input
      {...wired}
      data-field={field}
      type="url"
      autoComplete="off"
      spellCheck={false}
      className="font-mono"
      placeholder={placeholder}
      value={value}
      onChange={(event) => onChange(event.target.value)}
    />
  )
}

/** A checkbox with its label and, as its description, a hint; `field` names it for focusing the first error. */
export function Check({
  field,
  label,
  hint,
  checked,
  onChange,
  error,
}: {
  field: string
  label: string
  hint: string
  checked: boolean
  onChange: (checked: boolean) => void
  error?: string | undefined
}) {
  const id = useId()
  return (
    <div className="flex items-start gap-2 text-sm">
      <input
        id={id}
        type="checkbox"
        data-field={field}
        aria-describedby={`${id}-hint`}
        className="mt-1"
        checked={checked}
        onChange={(event) => onChange(event.target.checked)}
      />
      <div>
        <label htmlFor={id} className="font-medium">
          {label}
        </label>
        <p id={`${id}-hint`} className="text-muted">
          {hint}
        </p>
        {error ? <FieldMessage message={error} /> : null}
      </div>
    </div>
  )
}

/** Role rules: a claim, the value it must hold (or contain), and the role it gives; the first that matches wins. */
export function RoleRules({ rules, error, onChange }: { rules: RoleRule[]; error?: string | undefined; onChange: (rules: RoleRule[]) => void }) {
  const { t } = useI18n()
  const change = (index: number, rule: Partial<RoleRule>) => onChange(rules.map((current, at) => (at === index ? { ...current, ...rule } : current)))
  return (
    <fieldset className="space-y-2">
      <legend className="mb-1.5 text-sm font-medium text-fg">{t('signInMethods.fields.roleRules')}</legend>
      <p className="text-xs text-muted">{t('signInMethods.roleRulesHint')}</p>
      {rules.map((rule, index) => (
        <div key={index} className="grid grid-cols-1 gap-2 sm:grid-cols-[1fr_1fr_auto_auto] sm:items-end">
          <Field label={t('signInMethods.ruleClaim', { number: index + 1 })}>
            <Input
              data-field={index === 0 ? 'roleRules' : undefined}
              autoComplete="off"
              spellCheck={false}
              placeholder="groups"
              value={rule.claim}
              onChange={(event) => change(index, { claim: event.target.value })}
            />
          </Field>
          <Field label={t('signInMethods.ruleValue', { number: index + 1 })}>
            <Input autoComplete="off" spellCheck={false} value={rule.value} onChange={(event) => change(index, { value: event.target.value })} />
          </Field>
          <Field label={t('signInMethods.ruleRole', { number: index + 1 })}>
            <Select value={rule.role} onChange={(event) => change(index, { role: event.target.value as Role })}>
              {ROLES.map((role) => (
                <option key={role} value={role}>
                  {t(`roles.${role}`)}
                </option>
              ))}
            </Select>
          </Field>
          <Button
            variant="outline"
            size="icon"
            aria-label={t('signInMethods.removeRule', { number: index + 1 })}
            onClick={() => onChange(rules.filter((_rule, at) => at !== index))}
          >
            <Trash2 aria-hidden className="size-4" />
          </Button>
        </div>
      ))}
      <Button variant="outline" size="sm" onClick={() => onChange([...rules, { claim: '', value: '', role: 'CLIENT' }])}>
        <Plus aria-hidden className="size-4" />
        {t('signInMethods.addRule')}
      </Button>
      {error ? <FieldMessage message={error} /> : null}
    </fieldset>
  )
}

type SamlField = 'samlMetadataXml' | 'samlEmailAttribute' | 'samlNameAttribute'

/**
 * SAML's fields: the identity provider's metadata, pasted into a large box, and the names of the
 * attributes that carry the e-mail address and the name (empty: the contract's lists, begun in the
 * placeholder and whole in the hint, as the placeholder would be cut off). A new provider's entity
 * ID and ACS URL hold its id: said to come once it is added.
 */
export function SamlFields({
  values,
  errors,
  saved,
  onChange,
}: {
  values: Record<SamlField, string>
  errors: Partial<Record<SamlField, string>>
  saved: boolean
  onChange: (field: SamlField, value: string) => void
}) {
  const { t } = useI18n()
  return (
    <>
      {saved ? null : <Alert tone="info">{t('signInMethods.samlAddressesLater')}</Alert>}
      <Field label={t('signInMethods.fields.samlMetadataXml')} hint={t('signInMethods.samlMetadataHint')} error={errors.samlMetadataXml}>
        <textarea
          data-field="samlMetadataXml"
          rows={10}
          spellCheck={false}
          autoComplete="off"
          className={cn(controlClass, 'h-auto min-h-40 py-2 font-mono text-xs')}
          placeholder={'<md:EntityDescriptor entityID="…">'}
          value={values.samlMetadataXml}
          onChange={(event) => onChange('samlMetadataXml', event.target.value)}
        />
      </Field>
      {(
        [
          ['samlEmailAttribute', DEFAULT_SAML_EMAIL_ATTRIBUTES],
          ['samlNameAttribute', DEFAULT_SAML_NAME_ATTRIBUTES],
        ] as const
      ).map(([field, defaults]) => (
        <Field
          key={field}
          label={t(`signInMethods.fields.${field}`)}
          optional
          hint={<span className="break-words">{t('signInMethods.samlAttributeHint', { names: defaults.join(', ') })}</span>}
          error={errors[field]}
        >
          <Input
            data-field={field}
            autoComplete="off"
            spellCheck={false}
            className="font-mono"
            placeholder={`${defaults.slice(0, 2).join(', ')}, …`}
            value={values[field]}
            onChange={(event) => onChange(field, event.target.value)}
          />
        </Field>
      ))}
    </>
  )
}
