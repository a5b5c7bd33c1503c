import { type FormEvent, useState } from 'react'
import { ROLES, type Role } from '~shared/constants'
import {
  type CreateIdentityProviderInput,
  createIdentityProviderSchema,
  type IdentityProvider,
  IDENTITY_PROVIDER_KINDS,
  type IdentityProviderKind,
  KIND_FIELDS,
  type KindField,
  type RoleRule,
  updateIdentityProviderSchema,
} from '~shared/schemas/identity-providers'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { Field } from '~web/components/ui/field'
import { Input, Select } from '~web/components/ui/input'
import { PasswordInput } from '~web/components/ui/password-input'
import { isApiError, toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { useCreateIdentityProvider, useUpdateIdentityProvider } from '../api/identity-providers'
import { ProviderAddresses } from './provider-addresses'
import { Check, FieldMessage, RoleRules, SamlFields, UrlInput } from './provider-form-controls'

const FIELDS = [
  'name',
  'kind',
  'issuer',
  'tenant',
  'baseUrl',
  'clientId',
  'clientSecret',
  'scopes',
  'samlMetadataXml',
  'samlEmailAttribute',
  'samlNameAttribute',
  'emailDomains',
  'trustEmail',
  'allowSignUp',
  'defaultRole',
  'roleRules',
  'syncRoles',
  'showOnSignIn',
] as const
type FormField = (typeof FIELDS)[number]
type Errors = Partial<Record<FormField, string>>

interface Values {
  name: string
  kind: IdentityProviderKind
  issuer: string
  tenant: string
  baseUrl: string
  clientId: string
  /** Write-only: empty on an edit keeps the secret the provider has. */
  clientSecret: string
  /** Space- or comma-separated; empty: the kind's default scopes. */
  scopes: string
  /** SAML: the identity provider's metadata, pasted; the attributes' names (empty: the default lists). */
  samlMetadataXml: string
  samlEmailAttribute: string
  samlNameAttribute: string
  /** Space-, comma- or line-separated. */
  emailDomains: string
  trustEmail: boolean
  allowSignUp: boolean
  defaultRole: Role
  roleRules: RoleRule[]
  syncRoles: boolean
  showOnSignIn: boolean
}

const words = (text: string) => text.split(/[\s,]+/).filter(Boolean)
/** The kind fields typed as text. */
const TEXT_FIELDS = ['issuer', 'tenant', 'baseUrl', 'clientId', 'clientSecret', 'samlMetadataXml', 'samlEmailAttribute', 'samlNameAttribute'] as const
/** The kind fields an emptied edit puts back to their default with null. */
const DEFAULTED_FIELDS = ['tenant', 'baseUrl', 'scopes', 'samlEmailAttribute', 'samlNameAttribute'] as const

function valuesOf(provider: IdentityProvider | null): Values {
  return {
    name: provider?.name ?? '',
    kind: provider?.kind ?? 'oidc',
    issuer: provider?.issuer ?? '',
    tenant: provider?.tenant ?? '',
    baseUrl: provider?.baseUrl ?? '',
    clientId: provider?.clientId ?? '',
    clientSecret: '',
    scopes: provider?.scopes?.join(' ') ?? '',
    samlMetadataXml: provider?.samlMetadataXml ?? '',
    samlEmailAttribute: provider?.samlEmailAttribute ?? '',
    samlNameAttribute: provider?.samlNameAttribute ?? '',
    emailDomains: provider?.emailDomains.join(', ') ?? '',
    trustEmail: provider?.trustEmail ?? false,
    allowSignUp: provider?.allowSignUp ?? false,
    defaultRole: provider?.defaultRole ?? 'CLIENT',
    roleRules: provider?.roleRules ?? [],
    syncRoles: provider?.syncRoles ?? false,
    showOnSignIn: provider?.showOnSignIn ?? true,
  }
}

/**
 * The request body: only the fields the kind takes (any other is a 400), an empty secret or
 * metadata left out (on an edit: kept), an empty tenant, GitHub address, scopes or SAML attribute
 * left out of a new provider and sent as null by an edit: either way the kind's default (decision 0519).
 */
function bodyOf(values: Values, editing: boolean): CreateIdentityProviderInput {
  const takes = KIND_FIELDS[values.kind].takes
  const kindFields: Partial<Record<KindField, unknown>> = {}
  for (const field of TEXT_FIELDS) {
    if (takes.includes(field) && values[field].trim() !== '') kindFields[field] = field === 'clientSecret' ? values[field] : values[field].trim()
  }
  if (takes.includes('scopes') && words(values.scopes).length > 0) kindFields.scopes = words(values.scopes)
  for (const field of DEFAULTED_FIELDS) if (editing && takes.includes(field) && kindFields[field] === undefined) kindFields[field] = null
  return {
    kind: values.kind,
    name: values.name,
    ...(kindFields as Partial<CreateIdentityProviderInput>),
    emailDomains: words(values.emailDomains),
    trustEmail: values.trustEmail,
    allowSignUp: values.allowSignUp,
    defaultRole: values.defaultRole,
    roleRules: values.roleRules,
    syncRoles: values.syncRoles,
    showOnSignIn: values.showOnSignIn,
  }
}

/** The first message for each field, from the schema's issues or the server's field errors ("roleRules.0.claim" is roleRules). */
function errorsOf(problems: { field: string; message: string }[]): Errors {
  const found: Errors = {}
  for (const { field, message } of problems) {
    const name = field.split('.')[0] as FormField
    if ((FIELDS as readonly string[]).includes(name) && !found[name]) found[name] = message
  }
  return found
}

/**
 * "Add a sign-in method" and "Edit sign-in method": the same form, checked with the server's own
 * schema before it is sent, showing only the fields the chosen kind takes. The client secret is
 * write-only: never shown, and on an edit left empty to keep it. An edit shows the redirect URI to
 * paste into the provider's console; a new provider's is shown once it exists (it holds its id).
 */
export function ProviderFormDialog({
  open,
  provider,
  appUrl,
  onClose,
  onCreated,
  returnFocus,
}: {
  open: boolean
  /** The provider edited; null for a new one. */
  provider: IdentityProvider | null
  /** APP_URL as the server names it (null until known): the addresses to paste into the provider's console. */
  appUrl: string | null
  onClose: () => void
  onCreated: (provider: IdentityProvider) => void
  returnFocus?: () => HTMLElement | null
}) {
  const { t } = useI18n()
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => (next ? undefined : onClose())}
      returnFocus={returnFocus}
      title={provider ? t('signInMethods.editTitle') : t('signInMethods.createTitle')}
      description={provider ? t('signInMethods.editDescription', { name: provider.name }) : t('signInMethods.createDescription')}
    >
      {open ? <ProviderForm provider={provider} appUrl={appUrl} onClose={onClose} onCreated={onCreated} /> : null}
    </Dialog>
  )
}

function ProviderForm({
  provider,
  appUrl,
  onClose,
  onCreated,
}: {
  provider: IdentityProvider | null
  appUrl: string | null
  onClose: () => void
  onCreated: (provider: IdentityProvider) => void
}) {
  const { t } = useI18n()
  const create = useCreateIdentityProvider()
  const update = useUpdateIdentityProvider()
  const [values, setValues] = useState<Values>(() => valuesOf(provider))
  const [errors, setErrors] = useState<Errors>({})
  const [submitting, setSubmitting] = useState(false)
  const set = <K extends keyof Values>(key: K, value: Values[K]) => setValues((current) => ({ ...current, [key]: value }))
  const takes = (field: KindField) => KIND_FIELDS[values.kind].takes.includes(field)

  const showErrors = (found: Errors) => {
    setErrors(found)
    const first = FIELDS.find((field) => found[field])
    if (first) document.querySelector<HTMLElement>(`[data-field="${first}"]`)?.focus()
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const body = bodyOf(values, !!provider)
    const checked = (provider ? updateIdentityProviderSchema : createIdentityProviderSchema).safeParse(body)
    if (!checked.success) {
      showErrors(errorsOf(checked.error.issues.map((issue) => ({ field: issue.path.join('.'), message: issue.message }))))
      return
    }
    setErrors({})
    setSubmitting(true)
    try {
      if (provider) {
        const { kind: _fixed, ...changes } = body
        await update.mutateAsync({ id: provider.id, changes })
        notify.success(t('signInMethods.updated'))
        onClose()
      } else {
        const created = await create.mutateAsync(body)
        notify.success(t('signInMethods.created'))
        onCreated(created)
      }
    } catch (error) {
      const found = isApiError(error) ? errorsOf(error.fieldErrors) : {}
      if (Object.keys(found).length > 0) showErrors(found)
      else toastFailure(error, provider ? t('signInMethods.updateFailed') : t('signInMethods.createFailed'))
    } finally {
      setSubmitting(false)
    }
  }

  return (
    <form noValidate onSubmit={(event) => void submit(event)} className="space-y-4">
      {provider && appUrl ? <ProviderAddresses appUrl={appUrl} provider={provider} /> : null}
      <fieldset className="space-y-2">
        <legend className="mb-1.5 text-sm font-medium text-fg">{t('signInMethods.fields.kind')}</legend>
        <div className="flex flex-wrap gap-x-4 gap-y-2">
          {IDENTITY_PROVIDER_KINDS.map((kind) => (
            <label key={kind} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="kind"
                value={kind}
                data-field={kind === values.kind ? 'kind' : undefined}
                checked={values.kind === kind}
                disabled={!!provider}
                onChange={() => setValues((current) => ({ ...current, kind, trustEmail: kind === 'google' }))}
              />
              {t(`signInMethods.kinds.${kind}`)}
            </label>
          ))}
        </div>
        {errors.kind ? <FieldMessage message={errors.kind} /> : null}
      </fieldset>
      <Field label={t('signInMethods.fields.name')} hint={t('signInMethods.nameHint')} error={errors.name}>
        <Input data-field="name" autoComplete="off" maxLength={100} value={values.name} onChange={(event) => set('name', event.target.value)} />
      </Field>
      {takes('issuer') ? (
        <Field label={t('signInMethods.fields.issuer')} hint={t('signInMethods.issuerHint')} error={errors.issuer}>
          <UrlInput field="issuer" value={values.issuer} onChange={(value) => set('issuer', value)} />
        </Field>
      ) : null}
      {takes('tenant') ? (
        <Field label={t('signInMethods.fields.tenant')} optional hint={t('signInMethods.tenantHint')} error={errors.tenant}>
          <Input
            data-field="tenant"
            autoComplete="off"
            spellCheck={false}
            placeholder="organizations"
            value={values.tenant}
            onChange={(event) => set('tenant', event.target.value)}
          />
        </Field>
      ) : null}
      {takes('baseUrl') ? (
        <Field label={t('signInMethods.fields.baseUrl')} optional hint={t('signInMethods.baseUrlHint')} error={errors.baseUrl}>
          <UrlInput field="baseUrl" value={values.baseUrl} placeholder="https://github.com" onChange={(value) => set('baseUrl', value)} />
        </Field>
      ) : null}
      {takes('clientId') ? (
        <Field label={t('signInMethods.fields.clientId')} error={errors.clientId}>
          <Input
            data-field="clientId"
            autoComplete="off"
            spellCheck={false}
            className="font-mono"
            value={values.clientId}
            onChange={(event) => set('clientId', event.target.value)}
          />
        </Field>
      ) : null}
      {takes('clientSecret') ? (
        <Field
          label={t('signInMethods.fields.clientSecret')}
          hint={provider?.hasClientSecret ? t('signInMethods.secretKeep') : t('signInMethods.secretHint')}
          error={errors.clientSecret}
        >
          <PasswordInput
            data-field="clientSecret"
            autoComplete="new-password"
            value={values.clientSecret}
            onChange={(event) => set('clientSecret', event.target.value)}
          />
        </Field>
      ) : null}
      {takes('samlMetadataXml') ? <SamlFields values={values} errors={errors} saved={!!provider} onChange={(field, value) => set(field, value)} /> : null}
      {takes('scopes') ? (
        <Field label={t('signInMethods.fields.scopes')} optional hint={t('signInMethods.scopesHint')} error={errors.scopes}>
          <Input
            data-field="scopes"
            autoComplete="off"
            spellCheck={false}
            className="font-mono"
            placeholder={values.kind === 'github' ? 'read:user user:email' : 'openid email profile'}
            value={values.scopes}
            onChange={(event) => set('scopes', event.target.value)}
          />
        </Field>
      ) : null}
      <Field label={t('signInMethods.fields.emailDomains')} optional hint={t('signInMethods.domainsHint')} error={errors.emailDomains}>
        <Input
          data-field="emailDomains"
          autoComplete="off"
          spellCheck={false}
          placeholder="example.com"
          value={values.emailDomains}
          onChange={(event) => set('emailDomains', event.target.value)}
        />
      </Field>
      <Check
        field="showOnSignIn"
        label={t('signInMethods.fields.showOnSignIn')}
        hint={t('signInMethods.showOnSignInHint')}
        checked={values.showOnSignIn}
        onChange={(checked) => set('showOnSignIn', checked)}
        error={errors.showOnSignIn}
      />
      <Check
        field="trustEmail"
        label={t('signInMethods.fields.trustEmail')}
        hint={t('signInMethods.trustEmailHint')}
        checked={values.trustEmail}
        onChange={(checked) => set('trustEmail', checked)}
        error={errors.trustEmail}
      />
      <Check
        field="allowSignUp"
        label={t('signInMethods.fields.allowSignUp')}
        hint={t('signInMethods.allowSignUpHint')}
        checked={values.allowSignUp}
        onChange={(checked) => set('allowSignUp', checked)}
        error={errors.allowSignUp}
      />
      <Field label={t('signInMethods.fields.defaultRole')} hint={t('signInMethods.defaultRoleHint')} error={errors.defaultRole}>
        <Select data-field="defaultRole" value={values.defaultRole} onChange={(event) => set('defaultRole', event.target.value as Role)}>
          {ROLES.filter((role) => role !== 'ADMIN').map((role) => (
            <option key={role} value={role}>
              {t(`roles.${role}`)}
            </option>
          ))}
        </Select>
      </Field>
      <RoleRules rules={values.roleRules} error={errors.roleRules} onChange={(rules) => set('roleRules', rules)} />
      <Check
        field="syncRoles"
        label={t('signInMethods.fields.syncRoles')}
        hint={t('signInMethods.syncRolesHint')}
        checked={values.syncRoles}
        onChange={(checked) => set('syncRoles', checked)}
        error={errors.syncRoles}
      />
      <div className="flex flex-col-reverse gap-2 pt-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button type="submit" disabled={submitting}>
          {provider ? (submitting ? t('signInMethods.saving') : t('signInMethods.save')) : submitting ? t('signInMethods.creating') : t('signInMethods.create')}
        </Button>
      </div>
    </form>
  )
}
