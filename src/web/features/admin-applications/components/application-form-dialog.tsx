import { cloneElement, type FormEvent, type ReactElement, type ReactNode, useId, useState } from 'react'
import { ROLES, type Role } from '~shared/constants'
import {
  type Application,
  APPLICATION_TYPES,
  type ApplicationType,
  type CreateApplicationInput,
  createApplicationSchema,
  updateApplicationSchema,
} from '~shared/schemas/applications'
import { API_SCOPE_NAMES, API_SCOPES, type ApiScope } from '~shared/scopes'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { Field } from '~web/components/ui/field'
import { controlClass, Input } from '~web/components/ui/input'
import { cn } from '~web/lib/cn'
import { isApiError, toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { useCreateApplication, useUpdateApplication } from '../api/applications'
import type { Credentials } from './credentials-dialog'

const FIELDS = ['name', 'type', 'redirectUris', 'postLogoutRedirectUris', 'backchannelLogoutUri', 'allowedRoles', 'firstParty', 'deviceFlow', 'scopes', 'jwks'] as const
type FormField = (typeof FIELDS)[number]
type Errors = Partial<Record<FormField, string>>

interface Values {
  name: string
  type: ApplicationType
  redirectUris: string
  postLogoutRedirectUris: string
  backchannelLogoutUri: string
  allowedRoles: Role[]
  firstParty: boolean
  /** Device sign-in (RFC 8628): command-line tools sign people in with a code. */
  deviceFlow: boolean
  scopes: ApiScope[]
  /** A pasted JSON Web Key Set (a new service application only); empty: a client secret instead. */
  jwks: string
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)

function valuesOf(application: Application | null): Values {
  return {
    name: application?.name ?? '',
    type: application?.type ?? 'confidential',
    redirectUris: application?.redirectUris.join('\n') ?? '',
    postLogoutRedirectUris: application?.postLogoutRedirectUris.join('\n') ?? '',
    backchannelLogoutUri: application?.backchannelLogoutUri ?? '',
    allowedRoles: application?.allowedRoles ?? [],
    firstParty: application?.firstParty ?? false,
    deviceFlow: application?.deviceFlow ?? false,
    scopes: (application?.scopes ?? []) as ApiScope[],
    jwks: '',
  }
}

/** The pasted key set as JSON; text that is not JSON goes as it is, and the schema says what is wrong. */
function keySetOf(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * The request body: one address a line, an empty back-channel URI as none. A service application
 * sends its scopes (and, when created with one, its key set) instead of the sign-in settings.
 */
function bodyOf(values: Values, editing: boolean): CreateApplicationInput {
  if (values.type === 'service') {
    const keySet = !editing && values.jwks.trim() !== '' ? { jwks: keySetOf(values.jwks.trim()) as CreateApplicationInput['jwks'] } : {}
    return { name: values.name, type: values.type, scopes: values.scopes, ...keySet }
  }
  return {
    name: values.name,
    type: values.type,
    redirectUris: lines(values.redirectUris),
    postLogoutRedirectUris: lines(values.postLogoutRedirectUris),
    backchannelLogoutUri: values.backchannelLogoutUri.trim() === '' ? null : values.backchannelLogoutUri.trim(),
    allowedRoles: values.allowedRoles,
    firstParty: values.firstParty,
    deviceFlow: values.deviceFlow,
  }
}

/** The first message for each field, from the schema's issues or the server's field errors ("redirectUris.2" is the field redirectUris). */
function errorsOf(problems: { field: string; message: string }[]): Errors {
  const found: Errors = {}
  for (const { field, message } of problems) {
    const name = field.split('.')[0] as FormField
    if ((FIELDS as readonly string[]).includes(name) && !found[name]) found[name] = message
  }
  return found
}

/**
 * "New application" and "Edit application": the same form, checked with the server's own schema
 * before it is sent; the server's field messages are shown at their fields too. An application's
 * type is chosen once. A new one's credentials go to the dialog that shows the secret once.
 */
export function ApplicationFormDialog({
  open,
  application,
  onClose,
  onCreated,
  returnFocus,
}: {
  open: boolean
  /** The application edited; null for a new one. */
  application: Application | null
  onClose: () => void
  onCreated: (credentials: Credentials) => void
  returnFocus?: () => HTMLElement | null
}) {
  const { t } = useI18n()
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => (next ? undefined : onClose())}
      returnFocus={returnFocus}
      title={application ? t('applications.editTitle') : t('applications.createTitle')}
      description={application ? t('applications.editDescription', { name: application.name }) : t('applications.createDescription')}
    >
      {open ? <ApplicationForm application={application} onClose={onClose} onCreated={onCreated} /> : null}
    </Dialog>
  )
}

function ApplicationForm({ application, onClose, onCreated }: { application: Application | null; onClose: () => void; onCreated: (credentials: Credentials) => void }) {
  const { t } = useI18n()
  const create = useCreateApplication()
  const update = useUpdateApplication()
  const [values, setValues] = useState<Values>(() => valuesOf(application))
  const [errors, setErrors] = useState<Errors>({})
  const [submitting, setSubmitting] = useState(false)
  const set = <K extends keyof Values>(key: K, value: Values[K]) => setValues((current) => ({ ...current, [key]: value }))

  const showErrors = (found: Errors) => {
    setErrors(found)
    const first = FIELDS.find((field) => found[field])
    if (first) document.querySelector<HTMLElement>(`[data-field="${first}"]`)?.focus()
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const body = bodyOf(values, !!application)
    const checked = (application ? updateApplicationSchema : createApplicationSchema).safeParse(body)
    if (!checked.success) {
      showErrors(errorsOf(checked.error.issues.map((issue) => ({ field: issue.path.join('.'), message: issue.message }))))
      return
    }
    setErrors({})
    setSubmitting(true)
    try {
      if (application) {
        const { type: _fixed, ...changes } = body
        await update.mutateAsync({ id: application.id, changes })
        notify.success(t('applications.updated'))
        onClose()
      } else {
        const created = await create.mutateAsync(body)
        notify.success(t('applications.created'))
        onCreated({ name: created.application.name, clientId: created.application.id, clientSecret: created.clientSecret, keySet: created.application.jwks !== null })
      }
    } catch (error) {
      const found = isApiError(error) ? errorsOf(error.fieldErrors) : {}
      if (Object.keys(found).length > 0) showErrors(found)
      else toastFailure(error, application ? t('applications.updateFailed') : t('applications.createFailed'))
    } finally {
      setSubmitting(false)
    }
  }

  return (
    <form noValidate onSubmit={(event) => void submit(event)} className="space-y-4">
      <Field label={t('applications.fields.name')} error={errors.name}>
        <Input data-field="name" autoComplete="off" maxLength={200} value={values.name} onChange={(event) => set('name', event.target.value)} />
      </Field>
      <Choices legend={t('applications.fields.type')} error={errors.type}>
        {APPLICATION_TYPES.map((type) => (
          <CheckControl key={type} label={t(`applications.types.${type}`)} hint={t(`applications.typeHints.${type}`)}>
            <input
              type="radio"
              name="type"
              data-field={type === values.type ? 'type' : undefined}
              value={type}
              checked={values.type === type}
              disabled={!!application}
              onChange={() => set('type', type)}
              className="mt-1"
            />
          </CheckControl>
        ))}
      </Choices>
      {values.type === 'service' ? (
        <ServiceFields values={values} errors={errors} creating={!application} set={set} />
      ) : (
        <SignInFields values={values} errors={errors} set={set} />
      )}
      <div className="flex flex-col-reverse gap-2 pt-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button type="submit" disabled={submitting}>
          {application ? (submitting ? t('applications.saving') : t('applications.save')) : submitting ? t('applications.creating') : t('applications.create')}
        </Button>
      </div>
    </form>
  )
}

type SetValue = <K extends keyof Values>(key: K, value: Values[K]) => void
const textareaClass = cn(controlClass, 'h-auto min-h-20 py-2 font-mono')

/** A service application's settings: its scopes, each with the line saying what it allows, and (new ones) a key set. */
function ServiceFields({ values, errors, creating, set }: { values: Values; errors: Errors; creating: boolean; set: SetValue }) {
  const { t, tm } = useI18n()
  return (
    <>
      <Choices legend={t('applications.fields.scopes')} hint={t('applications.scopesHint')} error={errors.scopes}>
        {API_SCOPE_NAMES.map((scope, index) => (
          <CheckControl key={scope} label={scope} hint={tm(API_SCOPES[scope].allows)}>
            <input
              type="checkbox"
              data-field={index === 0 ? 'scopes' : undefined}
              className="mt-1"
              checked={values.scopes.includes(scope)}
              onChange={(event) => set('scopes', event.target.checked ? [...values.scopes, scope] : values.scopes.filter((s) => s !== scope))}
            />
          </CheckControl>
        ))}
      </Choices>
      {creating ? (
        <Field label={t('applications.jwks')} optional hint={t('applications.jwksHint')} error={errors.jwks}>
          <textarea data-field="jwks" rows={4} spellCheck={false} className={textareaClass} value={values.jwks} onChange={(event) => set('jwks', event.target.value)} />
        </Field>
      ) : null}
    </>
  )
}

/** The settings of an application that signs people in. */
function SignInFields({ values, errors, set }: { values: Values; errors: Errors; set: SetValue }) {
  const { t } = useI18n()
  return (
    <>
      <Field label={t('applications.fields.redirectUris')} hint={t('applications.urisHint')} error={errors.redirectUris}>
        <textarea
          data-field="redirectUris"
          rows={3}
          spellCheck={false}
          className={textareaClass}
          value={values.redirectUris}
          onChange={(event) => set('redirectUris', event.target.value)}
        />
      </Field>
      <Field label={t('applications.fields.postLogoutRedirectUris')} optional hint={t('applications.urisHint')} error={errors.postLogoutRedirectUris}>
        <textarea
          data-field="postLogoutRedirectUris"
          rows={2}
          spellCheck={false}
          className={textareaClass}
          value={values.postLogoutRedirectUris}
          onChange={(event) => set('postLogoutRedirectUris', event.target.value)}
        />
      </Field>
      <Field label={t('applications.fields.backchannelLogoutUri')} optional error={errors.backchannelLogoutUri}>
        <Input
          data-field="backchannelLogoutUri"
          type="url"
          autoComplete="off"
          spellCheck={false}
          className="font-mono"
          value={values.backchannelLogoutUri}
          onChange={(event) => set('backchannelLogoutUri', event.target.value)}
        />
      </Field>
      <Choices legend={t('applications.fields.allowedRoles')} hint={t('applications.allowedRolesHint')} error={errors.allowedRoles}>
        <div className="flex flex-wrap gap-x-4 gap-y-2">
          {ROLES.map((role, index) => (
            <label key={role} className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                data-field={index === 0 ? 'allowedRoles' : undefined}
                checked={values.allowedRoles.includes(role)}
                onChange={(event) => set('allowedRoles', event.target.checked ? [...values.allowedRoles, role] : values.allowedRoles.filter((r) => r !== role))}
              />
              {t(`roles.${role}`)}
            </label>
          ))}
        </div>
      </Choices>
      <CheckControl label={t('applications.fields.firstParty')} hint={t('applications.firstPartyHint')}>
        <input type="checkbox" data-field="firstParty" className="mt-1" checked={values.firstParty} onChange={(event) => set('firstParty', event.target.checked)} />
      </CheckControl>
      <CheckControl label={t('applications.fields.deviceFlow')} hint={t('applications.deviceFlowHint')}>
        <input
          type="checkbox"
          role="switch"
          data-field="deviceFlow"
          className="mt-1"
          checked={values.deviceFlow}
          onChange={(event) => set('deviceFlow', event.target.checked)}
        />
      </CheckControl>
    </>
  )
}

/** A radio button or checkbox with its label and, as its description, a hint. */
function CheckControl({ label, hint, children }: { label: string; hint: string; children: ReactElement<{ id?: string; 'aria-describedby'?: string }> }) {
  const id = useId()
  return (
    <div className="flex items-start gap-2 text-sm">
      {cloneElement(children, { id, 'aria-describedby': `${id}-hint` })}
      <div>
        <label htmlFor={id} className="font-medium">
          {label}
        </label>
        <p id={`${id}-hint`} className="text-muted">
          {hint}
        </p>
      </div>
    </div>
  )
}

/** A group of radio buttons or checkboxes under its legend, with its hint and its error. */
function Choices({ legend, hint, error, children }: { legend: string; hint?: string; error?: string | undefined; children: ReactNode }) {
  const { tm } = useI18n()
  return (
    <fieldset className="space-y-2">
      <legend className="mb-1.5 text-sm font-medium text-fg">{legend}</legend>
      {hint ? <p className="text-xs text-muted">{hint}</p> : null}
      {children}
      {error ? <p className="text-sm text-danger dark:text-red-400">{tm(error)}</p> : null}
    </fieldset>
  )
}
