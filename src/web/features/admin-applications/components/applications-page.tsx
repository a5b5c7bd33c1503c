import { useState } from 'react'
import type { Application } from '~shared/schemas/applications'
import { ListStates, NewButton, useReturnFocus } from '~web/components/admin-list'
import { PageHeader } from '~web/components/ui/page-header'
import { toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { useApplications, useDeleteApplication, useReplaceApplicationSecret, useUpdateApplication } from '../api/applications'
import { ApplicationFormDialog } from './application-form-dialog'
import { ApplicationsEmpty } from './applications-empty'
import { type ApplicationAction, ApplicationsTable } from './applications-table'
import { ConfirmDialog } from '~web/components/confirm-dialog'
import { type Credentials, CredentialsDialog } from './credentials-dialog'

type Confirming = { application: Application; action: 'replace-secret' | 'delete' }

/**
 * Applications (ADMIN only): the apps that sign people in with Accounts. New, edit, replace the
 * client secret, disable or enable, delete. A client secret is shown once, right after it is made.
 */
export function ApplicationsPage() {
  const { t } = useI18n()
  const query = useApplications()
  const update = useUpdateApplication()
  const replaceSecret = useReplaceApplicationSecret()
  const remove = useDeleteApplication()
  const [form, setForm] = useState<{ application: Application | null } | null>(null)
  const [confirming, setConfirming] = useState<Confirming | null>(null)
  const [credentials, setCredentials] = useState<Credentials | null>(null)
  const { area, returnTo, returnFocus } = useReturnFocus()

  const toggle = async (application: Application) => {
    try {
      await update.mutateAsync({ id: application.id, changes: { enabled: !application.enabled } })
      notify.success(t(application.enabled ? 'applications.disabledDone' : 'applications.enabledDone', { name: application.name }))
    } catch (error) {
      toastFailure(error, t('applications.updateFailed'))
    }
  }

  const onAction = (application: Application, action: ApplicationAction) => {
    returnTo(application.id)
    if (action === 'edit') setForm({ application })
    else if (action === 'toggle') void toggle(application)
    else setConfirming({ application, action })
  }

  const confirm = async () => {
    if (!confirming) return
    const { application, action } = confirming
    try {
      if (action === 'delete') {
        await remove.mutateAsync(application.id)
        notify.success(t('applications.deleted'))
        setConfirming(null)
      } else {
        const clientSecret = await replaceSecret.mutateAsync(application.id)
        notify.success(t('applications.replaced'))
        setConfirming(null)
        setCredentials({ name: application.name, clientId: application.id, clientSecret })
      }
    } catch (error) {
      toastFailure(error, action === 'delete' ? t('applications.deleteFailed') : t('applications.replaceFailed'))
    }
  }

  return (
    <div ref={area}>
      <PageHeader
        title={t('applications.title')}
        description={t('applications.description')}
        actions={
          <NewButton
            label={t('applications.newApplication')}
            onClick={() => {
              returnTo(null)
              setForm({ application: null })
            }}
          />
        }
      />
      <ListStates query={query} loadError={t('applications.loadError')} empty={<ApplicationsEmpty />}>
        {(applications) => <ApplicationsTable applications={applications} onAction={onAction} />}
      </ListStates>
      <ApplicationFormDialog
        open={!!form}
        application={form?.application ?? null}
        onClose={() => setForm(null)}
        onCreated={(created) => {
          setForm(null)
          setCredentials(created)
        }}
        returnFocus={returnFocus}
      />
      <ConfirmDialog
        open={!!confirming}
        title={confirming?.action === 'delete' ? t('applications.deleteTitle') : t('applications.replaceTitle')}
        text={confirming ? t(confirming.action === 'delete' ? 'applications.deleteText' : 'applications.replaceText', { name: confirming.application.name }) : ''}
        confirm={confirming?.action === 'delete' ? t('applications.deleteConfirm') : t('applications.replaceConfirm')}
        busy={confirming?.action === 'delete' ? t('applications.deleting') : t('applications.replacing')}
        danger={confirming?.action === 'delete'}
        onConfirm={confirm}
        onClose={() => setConfirming(null)}
        returnFocus={returnFocus}
      />
      <CredentialsDialog credentials={credentials} onClose={() => setCredentials(null)} />
    </div>
  )
}
