import TriangleAlert from 'lucide-react/icons/triangle-alert'
import Trash2 from 'lucide-react/icons/trash-2'
import { type FormEvent, type ReactNode, useRef, useState } from 'react'
import { type ApiKey, createApiKeySchema } from '~shared/schemas/api-keys'
import type { Application } from '~shared/schemas/applications'
import { Button } from '~web/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~web/components/ui/card'
import { Dialog } from '~web/components/ui/dialog'
import { Field } from '~web/components/ui/field'
import { Input } from '~web/components/ui/input'
import { Spinner } from '~web/components/ui/spinner'
import { isApiError, toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { formatDateTime } from '~web/lib/time'
import { notify } from '~web/lib/toast'
import { useApiKeys, useCreateApiKey, useDeleteApiKey } from '../api/api-keys'
import { ConfirmDialog } from '~web/components/confirm-dialog'
import { CopyField } from '~web/components/copy-field'

/** A cell that, on a phone, says what it is before its value (the header row is hidden there). */
function Cell({ label, children }: { label: string; children: ReactNode }) {
  return (
    <td className="block text-sm md:table-cell md:px-2 md:py-2">
      <span className="text-muted md:hidden">{label}: </span>
      {children}
    </td>
  )
}

type Errors = Partial<Record<'name' | 'expiresAt', string>>

/** The end of the chosen day, in the admin's time zone, as the API's instant. */
const endOfDay = (day: string) => new Date(`${day}T23:59:59`).toISOString()

/**
 * A service application's API keys (contract section 11): create one with a name and an optional
 * expiry, its secret shown once with Copy; the list shows each key's prefix, creation, expiry and
 * last use, and deletes a key.
 */
export function ApiKeysCard({ application }: { application: Application }) {
  const { t } = useI18n()
  const keys = useApiKeys(application.id)
  const create = useCreateApiKey(application.id)
  const remove = useDeleteApiKey(application.id)
  const [name, setName] = useState('')
  const [expires, setExpires] = useState('')
  const [errors, setErrors] = useState<Errors>({})
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null)
  const [deleting, setDeleting] = useState<ApiKey | null>(null)
  const lastTrigger = useRef<HTMLElement | null>(null)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const body = { name, ...(expires ? { expiresAt: endOfDay(expires) } : {}) }
    const checked = createApiKeySchema.safeParse(body)
    if (!checked.success) {
      const found: Errors = {}
      for (const issue of checked.error.issues) found[issue.path[0] as keyof Errors] ??= issue.message
      setErrors(found)
      return
    }
    setErrors({})
    try {
      const answer = await create.mutateAsync(body)
      notify.success(t('applications.keys.created'))
      setCreated({ name: answer.key.name, secret: answer.secret })
      setName('')
      setExpires('')
    } catch (error) {
      const found: Errors = {}
      if (isApiError(error)) for (const { field, message } of error.fieldErrors) found[field as keyof Errors] ??= message
      if (Object.keys(found).length > 0) setErrors(found)
      else toastFailure(error, t('applications.keys.createFailed'))
    }
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>{t('applications.keys.title')}</CardTitle>
        <CardDescription>{t('applications.keys.description')}</CardDescription>
      </CardHeader>
      <CardContent className="space-y-6">
        <form noValidate onSubmit={(event) => void submit(event)} className="grid gap-4 sm:grid-cols-[1fr_auto_auto] sm:items-end">
          <Field label={t('applications.keys.name')} error={errors.name}>
            <Input autoComplete="off" maxLength={200} value={name} onChange={(event) => setName(event.target.value)} />
          </Field>
          <Field label={t('applications.keys.expires')} optional hint={t('applications.keys.expiresHint')} error={errors.expiresAt}>
            <Input type="date" value={expires} onChange={(event) => setExpires(event.target.value)} />
          </Field>
          <Button type="submit" disabled={create.isPending}>
            {create.isPending ? t('applications.keys.creating') : t('applications.keys.create')}
          </Button>
        </form>
        {keys.isPending ? (
          <Spinner />
        ) : keys.isError ? (
          <p role="alert" className="text-sm text-danger dark:text-red-400">
            {t('applications.keys.loadError')}
          </p>
        ) : keys.data.length === 0 ? (
          <p className="text-sm text-muted">{t('applications.keys.empty')}</p>
        ) : (
          <div className="min-w-0">
            <table aria-label={t('applications.keys.list')} className="block w-full text-left text-sm md:table">
              <thead className="hidden border-b border-line text-muted md:table-header-group">
                <tr>
                  <th scope="col" className="px-2 py-2 font-medium">
                    {t('applications.keys.name')}
                  </th>
                  <th scope="col" className="px-2 py-2 font-medium">
                    {t('applications.keys.prefix')}
                  </th>
                  <th scope="col" className="px-2 py-2 font-medium">
                    {t('applications.keys.createdAt')}
                  </th>
                  <th scope="col" className="px-2 py-2 font-medium">
                    {t('applications.keys.expires')}
                  </th>
                  <th scope="col" className="px-2 py-2 font-medium">
                    {t('applications.keys.lastUsed')}
                  </th>
                  <th scope="col" className="px-2 py-2 text-right font-medium">
                    <span className="sr-only">{t('applications.keys.actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody className="block md:table-row-group">
                {keys.data.map((key) => (
                  <tr key={key.id} className="relative block border-b border-line py-2 last:border-0 md:table-row md:py-0">
                    <td className="block pr-12 font-medium break-words md:table-cell md:px-2 md:py-2">{key.name}</td>
                    <Cell label={t('applications.keys.prefix')}>
                      <span className="font-mono text-xs">{key.prefix}…</span>
                    </Cell>
                    <Cell label={t('applications.keys.createdAt')}>{formatDateTime(key.createdAt)}</Cell>
                    <Cell label={t('applications.keys.expires')}>{key.expiresAt ? formatDateTime(key.expiresAt) : t('applications.keys.noExpiry')}</Cell>
                    <Cell label={t('applications.keys.lastUsed')}>{key.lastUsedAt ? formatDateTime(key.lastUsedAt) : t('applications.keys.never')}</Cell>
                    <td className="absolute top-1 right-0 md:static md:table-cell md:px-2 md:py-2 md:text-right">
                      <Button
                        variant="ghost"
                        size="icon"
                        aria-label={t('applications.keys.deleteLabel', { name: key.name })}
                        onClick={(event) => {
                          lastTrigger.current = event.currentTarget
                          setDeleting(key)
                        }}
                      >
                        <Trash2 aria-hidden className="size-4" />
                      </Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </CardContent>
      <Dialog
        open={!!created}
        onOpenChange={(open) => (open ? undefined : setCreated(null))}
        title={t('applications.keys.secretTitle')}
        description={created ? t('applications.keys.secretText', { name: created.name, app: application.name }) : undefined}
      >
        {created ? (
          <div className="space-y-4">
            <CopyField label={t('applications.keys.secret')} value={created.secret} />
            <p
              role="alert"
              className="flex gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
            >
              <TriangleAlert aria-hidden className="mt-0.5 size-4 shrink-0" />
              {t('applications.keys.secretWarning')}
            </p>
            <div className="flex justify-end pt-2">
              <Button onClick={() => setCreated(null)}>{t('applications.keys.done')}</Button>
            </div>
          </div>
        ) : null}
      </Dialog>
      <ConfirmDialog
        open={!!deleting}
        title={t('applications.keys.deleteTitle')}
        text={deleting ? t('applications.keys.deleteText', { name: deleting.name }) : ''}
        confirm={t('applications.keys.deleteConfirm')}
        busy={t('applications.keys.deleting')}
        danger
        returnFocus={() => lastTrigger.current}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return
          try {
            await remove.mutateAsync(deleting.id)
            notify.success(t('applications.keys.deleted'))
            setDeleting(null)
          } catch (error) {
            toastFailure(error, t('applications.keys.deleteFailed'))
          }
        }}
      />
    </Card>
  )
}
