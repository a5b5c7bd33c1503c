import { type FormEvent, useId, useState } from 'react'
import { type CreatedWebhook, createWebhookSchema, type CreateWebhookInput, updateWebhookSchema, type Webhook } from '~shared/schemas/webhooks'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { Field } from '~web/components/ui/field'
import { Input } from '~web/components/ui/input'
import { isApiError, toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { useCreateWebhook, useUpdateWebhook } from '../api/webhooks'
import { EVENT_HINTS, type SubscribableEvent, SUBSCRIBABLE_EVENTS } from './event-choices'

const FIELDS = ['url', 'description', 'events'] as const
type FormField = (typeof FIELDS)[number]
type Errors = Partial<Record<FormField, string>>

interface Values {
  url: string
  description: string
  /** Every event, those added later too (`["*"]`). */
  all: boolean
  events: SubscribableEvent[]
}

function valuesOf(webhook: Webhook | null): Values {
  const all = webhook?.events.includes('*') ?? false
  return {
    url: webhook?.url ?? '',
    description: webhook?.description ?? '',
    all,
    events: all ? [] : SUBSCRIBABLE_EVENTS.filter((type) => webhook?.events.includes(type)),
  }
}

/** The request body: the events in the shared list's order, whatever the order they were ticked in. */
const bodyOf = (values: Values): CreateWebhookInput => ({
  url: values.url.trim(),
  events: values.all ? ['*'] : SUBSCRIBABLE_EVENTS.filter((type) => values.events.includes(type)),
  description: values.description.trim(),
})

/** The first message for each field, from the schema's issues or the server's field errors ("events.0" is the field events). */
function errorsOf(problems: { field: string; message: string }[]): Errors {
  const found: Errors = {}
  for (const { field, message } of problems) {
    const name = (field.split('.')[0] || 'events') as FormField
    if ((FIELDS as readonly string[]).includes(name) && !found[name]) found[name] = message
  }
  return found
}

/**
 * "Add endpoint" and "Edit": the same form, checked with the server's own schema before it is
 * sent (the same address rules: no credentials, no fragment, no link-local or metadata address);
 * the server's field messages are shown at their fields too. A new endpoint's secret goes to the
 * dialog that shows it once.
 */
export function WebhookFormDialog({
  open,
  webhook,
  onClose,
  onCreated,
  returnFocus,
}: {
  open: boolean
  /** The endpoint edited; null for a new one. */
  webhook: Webhook | null
  onClose: () => void
  onCreated: (created: CreatedWebhook) => void
  returnFocus?: () => HTMLElement | null
}) {
  const { t } = useI18n()
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => (next ? undefined : onClose())}
      returnFocus={returnFocus}
      title={webhook ? t('webhooks.editTitle') : t('webhooks.createTitle')}
      description={webhook ? t('webhooks.editDescription', { url: webhook.url }) : t('webhooks.createDescription')}
    >
      {open ? <WebhookForm webhook={webhook} onClose={onClose} onCreated={onCreated} /> : null}
    </Dialog>
  )
}

function WebhookForm({ webhook, onClose, onCreated }: { webhook: Webhook | null; onClose: () => void; onCreated: (created: CreatedWebhook) => void }) {
  const { t, tm } = useI18n()
  const create = useCreateWebhook()
  const update = useUpdateWebhook()
  const [values, setValues] = useState<Values>(() => valuesOf(webhook))
  const [errors, setErrors] = useState<Errors>({})
  const [submitting, setSubmitting] = useState(false)
  const id = useId()
  const set = <K extends keyof Values>(key: K, value: Values[K]) => setValues((current) => ({ ...current, [key]: value }))

  const showErrors = (found: Errors) => {
    setErrors(found)
    const first = FIELDS.find((field) => found[field])
    if (first) document.querySelector<HTMLElement>(`[data-field="${first}"]`)?.focus()
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const body = bodyOf(values)
    const checked = (webhook ? updateWebhookSchema : createWebhookSchema).safeParse(body)
    if (!checked.success) {
      showErrors(errorsOf(checked.error.issues.map((issue) => ({ field: issue.path.join('.'), message: issue.message }))))
      return
    }
    setErrors({})
    setSubmitting(true)
    try {
      if (webhook) {
        await update.mutateAsync({ id: webhook.id, changes: body })
        notify.success(t('webhooks.updated'))
        onClose()
      } else {
        const created = await create.mutateAsync(body)
        notify.success(t('webhooks.created'))
        onCreated(created)
      }
    } catch (error) {
      const found = isApiError(error) ? errorsOf(error.fieldErrors) : {}
      if (Object.keys(found).length > 0) showErrors(found)
      else toastFailure(error, webhook ? t('webhooks.updateFailed') : t('webhooks.createFailed'))
    } finally {
      setSubmitting(false)
    }
  }

  return (
    <form noValidate onSubmit={(event) => void submit(event)} className="space-y-4">
      <Field label={t('webhooks.fields.url')} hint={t('webhooks.urlHint')} error={errors.url}>
        <Input
          data-field="url"
          type="url"
          autoComplete="off"
          spellCheck={false}
          className="font-mono"
          maxLength={2000}
          value={values.url}
          onChange={(event) => set('url', event.target.value)}
        />
      </Field>
      <Field label={t('webhooks.fields.description')} optional error={errors.description}>
        <Input data-field="description" autoComplete="off" maxLength={200} value={values.description} onChange={(event) => set('description', event.target.value)} />
      </Field>
      <fieldset className="space-y-2" aria-describedby={`${id}-events-hint${errors.events ? ` ${id}-events-error` : ''}`}>
        <legend className="mb-1.5 text-sm font-medium text-fg">{t('webhooks.fields.events')}</legend>
        <p id={`${id}-events-hint`} className="text-xs text-muted">
          {t('webhooks.eventsHint')}
        </p>
        <EventChoice
          id={`${id}-all`}
          label={t('webhooks.allEvents')}
          hint={t('webhooks.allEventsHint')}
          checked={values.all}
          field="events"
          onChange={(checked) => set('all', checked)}
        />
        <div className="grid gap-2 border-t border-line pt-2 sm:grid-cols-2">
          {SUBSCRIBABLE_EVENTS.map((type) => (
            <EventChoice
              key={type}
              id={`${id}-${type}`}
              label={type}
              mono
              hint={t(EVENT_HINTS[type])}
              disabled={values.all}
              checked={values.all || values.events.includes(type)}
              onChange={(checked) => set('events', checked ? [...values.events, type] : values.events.filter((e) => e !== type))}
            />
          ))}
        </div>
        {errors.events ? (
          <p id={`${id}-events-error`} className="text-sm text-danger dark:text-red-400">
            {tm(errors.events)}
          </p>
        ) : null}
      </fieldset>
      <div className="flex flex-col-reverse gap-2 pt-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button type="submit" disabled={submitting}>
          {webhook ? (submitting ? t('webhooks.saving') : t('webhooks.save')) : submitting ? t('webhooks.creating') : t('webhooks.create')}
        </Button>
      </div>
    </form>
  )
}

/** A checkbox with its label and, as its description, a hint. */
function EventChoice({
  id,
  label,
  hint,
  checked,
  disabled,
  mono,
  field,
  onChange,
}: {
  id: string
  label: string
  hint: string
  checked: boolean
  disabled?: boolean
  mono?: boolean
  field?: FormField
  onChange: (checked: boolean) => void
}) {
  return (
    <div className="flex items-start gap-2 text-sm">
      <input
        type="checkbox"
        id={id}
        data-field={field}
        aria-describedby={`${id}-hint`}
        className="mt-1"
        checked={checked}
        disabled={disabled}
        onChange={(event) => onChange(event.target.checked)}
      />
      <div className="min-w-0">
        <label htmlFor={id} className={mono ? 'font-mono text-xs font-medium wrap-anywhere' : 'font-medium'}>
          {label}
        </label>
        <p id={`${id}-hint`} className="text-muted">
          {hint}
        </p>
      </div>
    </div>
  )
}
