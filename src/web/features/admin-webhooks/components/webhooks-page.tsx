import { useState } from 'react'
import ChevronDown from 'lucide-react/icons/chevron-down'
import EllipsisVertical from 'lucide-react/icons/ellipsis-vertical'
import KeyRound from 'lucide-react/icons/key-round'
import Pencil from 'lucide-react/icons/pencil'
import Power from 'lucide-react/icons/power'
import Send from 'lucide-react/icons/send'
import Trash2 from 'lucide-react/icons/trash-2'
import Webhook from 'lucide-react/icons/webhook'
import type { Webhook as WebhookEndpoint } from '~shared/schemas/webhooks'
import { ListEmpty, ListStates, NewButton, useReturnFocus } from '~web/components/admin-list'
import { ConfirmDialog } from '~web/components/confirm-dialog'
import { Badge } from '~web/components/ui/badge'
import { Button, buttonClass } from '~web/components/ui/button'
import { Card, CardContent } from '~web/components/ui/card'
import { Menu, MenuContent, MenuItem, MenuTrigger } from '~web/components/ui/dropdown-menu'
import { PageHeader } from '~web/components/ui/page-header'
import { cn } from '~web/lib/cn'
import { toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { useDeleteWebhook, useReplaceWebhookSecret, useSendTestEvent, useUpdateWebhook, useWebhooks } from '../api/webhooks'
import { Deliveries } from './deliveries'
import { SecretDialog, type ShownSecret } from './secret-dialog'
import { UrlText } from './url-text'
import { WebhookFormDialog } from './webhook-form-dialog'

type Action = 'edit' | 'rotate' | 'toggle' | 'delete'
type Confirming = { webhook: WebhookEndpoint; action: 'rotate' | 'delete' }

/**
 * Webhooks (ADMIN only): the endpoints the product tells what happened (contract section 12).
 * Add, edit, send a test event, rotate the signing secret, disable or enable, delete; each
 * endpoint's deliveries with their answers, and Retry. A secret is shown once, right after it is made.
 */
export function WebhooksPage() {
  const { t } = useI18n()
  const query = useWebhooks()
  const update = useUpdateWebhook()
  const rotate = useReplaceWebhookSecret()
  const remove = useDeleteWebhook()
  const sendTest = useSendTestEvent()
  const [form, setForm] = useState<{ webhook: WebhookEndpoint | null } | null>(null)
  const [confirming, setConfirming] = useState<Confirming | null>(null)
  const [shown, setShown] = useState<ShownSecret | null>(null)
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set())
  const { area, returnTo, returnFocus } = useReturnFocus()

  const showDeliveries = (id: string, show: boolean) =>
    setOpen((current) => {
      const next = new Set(current)
      if (show) next.add(id)
      else next.delete(id)
      return next
    })

  const toggle = async (webhook: WebhookEndpoint) => {
    try {
      await update.mutateAsync({ id: webhook.id, changes: { enabled: !webhook.enabled } })
      notify.success(t(webhook.enabled ? 'webhooks.disabledDone' : 'webhooks.enabledDone'))
    } catch (error) {
      toastFailure(error, t('webhooks.updateFailed'))
    }
  }

  const test = async (webhook: WebhookEndpoint) => {
    try {
      await sendTest.mutateAsync(webhook.id)
      notify.success(t('webhooks.testSent'))
      showDeliveries(webhook.id, true)
    } catch (error) {
      toastFailure(error, t('webhooks.testFailed'))
    }
  }

  const onAction = (webhook: WebhookEndpoint, action: Action) => {
    returnTo(webhook.id)
    if (action === 'edit') setForm({ webhook })
    else if (action === 'toggle') void toggle(webhook)
    else setConfirming({ webhook, action })
  }

  const confirm = async () => {
    if (!confirming) return
    const { webhook, action } = confirming
    try {
      if (action === 'delete') {
        await remove.mutateAsync(webhook.id)
        notify.success(t('webhooks.deleted'))
        setConfirming(null)
      } else {
        const secret = await rotate.mutateAsync(webhook.id)
        notify.success(t('webhooks.rotated'))
        setConfirming(null)
        setShown({ url: webhook.url, secret })
      }
    } catch (error) {
      toastFailure(error, action === 'delete' ? t('webhooks.deleteFailed') : t('webhooks.rotateFailed'))
    }
  }

  return (
    <div ref={area}>
      <PageHeader
        title={t('webhooks.title')}
        description={t('webhooks.description')}
        actions={
          <NewButton
            label={t('webhooks.newEndpoint')}
            onClick={() => {
              returnTo(null)
              setForm({ webhook: null })
            }}
          />
        }
      />
      <ListStates
        query={query}
        framed={false}
        loadError={t('webhooks.loadError')}
        empty={
          <ListEmpty icon={Webhook} title={t('webhooks.empty')} lines={[t('webhooks.emptyWhat')]} guide={{ text: t('webhooks.emptyGuide'), file: 'docs/webhooks.md' }} />
        }
      >
        {(webhooks) => (
          <ul aria-label={t('webhooks.list')} className="space-y-4">
            {webhooks.map((webhook) => (
              <li key={webhook.id}>
                <EndpointCard
                  webhook={webhook}
                  open={open.has(webhook.id)}
                  onOpen={(show) => showDeliveries(webhook.id, show)}
                  onTest={() => void test(webhook)}
                  onAction={(action) => onAction(webhook, action)}
                />
              </li>
            ))}
          </ul>
        )}
      </ListStates>
      <WebhookFormDialog
        open={!!form}
        webhook={form?.webhook ?? null}
        onClose={() => setForm(null)}
        onCreated={(created) => {
          setForm(null)
          returnTo(created.webhook.id)
          setShown({ url: created.webhook.url, secret: created.secret })
        }}
        returnFocus={returnFocus}
      />
      <ConfirmDialog
        open={!!confirming}
        title={confirming?.action === 'delete' ? t('webhooks.deleteTitle') : t('webhooks.rotateTitle')}
        text={confirming ? t(confirming.action === 'delete' ? 'webhooks.deleteText' : 'webhooks.rotateText', { url: confirming.webhook.url }) : ''}
        confirm={confirming?.action === 'delete' ? t('webhooks.deleteConfirm') : t('webhooks.rotateConfirm')}
        busy={confirming?.action === 'delete' ? t('webhooks.deleting') : t('webhooks.rotating')}
        danger={confirming?.action === 'delete'}
        onConfirm={confirm}
        onClose={() => setConfirming(null)}
        returnFocus={returnFocus}
      />
      <SecretDialog shown={shown} onClose={() => setShown(null)} />
    </div>
  )
}

/**
 * One endpoint: its address, description, state and events; Send test event, its deliveries
 * (shown on request), and the rest of its actions in a menu whose button carries the endpoint's
 * id, so focus can go back to it when a dialog it opened closes.
 */
function EndpointCard({
  webhook,
  open,
  onOpen,
  onTest,
  onAction,
}: {
  webhook: WebhookEndpoint
  open: boolean
  onOpen: (open: boolean) => void
  onTest: () => void
  onAction: (action: Action) => void
}) {
  const { t, tm } = useI18n()
  const panel = `deliveries-${webhook.id}`
  const heading = `webhook-${webhook.id}`
  return (
    <Card aria-labelledby={heading}>
      <div className="flex items-start gap-3 p-4 sm:p-6">
        <div className="min-w-0 flex-1 space-y-2">
          <h2 id={heading} className="font-mono text-sm font-semibold wrap-anywhere sm:text-base">
            <UrlText url={webhook.url} />
          </h2>
          {webhook.description ? <p className="text-sm text-muted">{webhook.description}</p> : null}
          <div className="flex flex-wrap items-center gap-2">
            <Badge tone={webhook.enabled ? 'green' : 'gray'}>{webhook.enabled ? t('webhooks.enabled') : t('webhooks.disabled')}</Badge>
            {!webhook.enabled && webhook.disabledReason ? (
              <span className="text-sm text-muted">{t('webhooks.disabledBecause', { reason: tm(webhook.disabledReason) })}</span>
            ) : null}
          </div>
          <ul aria-label={t('webhooks.eventsOf', { url: webhook.url })} className="flex flex-wrap gap-1.5">
            {webhook.events.map((event) => (
              <li key={event}>
                <Badge tone="blue" className={event === '*' ? undefined : 'font-mono'}>
                  {event === '*' ? t('webhooks.allEvents') : event}
                </Badge>
              </li>
            ))}
          </ul>
        </div>
        <Menu>
          <MenuTrigger className={buttonClass('ghost', 'icon')} aria-label={t('webhooks.actionsFor', { url: webhook.url })} data-row-actions={webhook.id}>
            <EllipsisVertical aria-hidden className="size-4" />
          </MenuTrigger>
          <MenuContent>
            <MenuItem onSelect={() => onAction('edit')}>
              <Pencil aria-hidden className="size-4" />
              {t('webhooks.edit')}
            </MenuItem>
            <MenuItem onSelect={() => onAction('rotate')}>
              <KeyRound aria-hidden className="size-4" />
              {t('webhooks.rotateSecret')}
            </MenuItem>
            <MenuItem onSelect={() => onAction('toggle')}>
              <Power aria-hidden className="size-4" />
              {webhook.enabled ? t('webhooks.disable') : t('webhooks.enable')}
            </MenuItem>
            <MenuItem danger onSelect={() => onAction('delete')}>
              <Trash2 aria-hidden className="size-4" />
              {t('webhooks.delete')}
            </MenuItem>
          </MenuContent>
        </Menu>
      </div>
      <CardContent className="space-y-4">
        <div className="flex flex-wrap gap-2">
          <Button variant="outline" size="sm" onClick={onTest}>
            <Send aria-hidden className="size-4" />
            {t('webhooks.sendTest')}
          </Button>
          <Button variant="outline" size="sm" aria-expanded={open} aria-controls={open ? panel : undefined} onClick={() => onOpen(!open)}>
            <ChevronDown aria-hidden className={cn('size-4 transition-transform', open && 'rotate-180')} />
            {open ? t('webhooks.deliveries.hide') : t('webhooks.deliveries.show')}
          </Button>
        </div>
        {open ? (
          <div id={panel} className="border-t border-line pt-4">
            <Deliveries webhook={webhook} />
          </div>
        ) : null}
      </CardContent>
    </Card>
  )
}
