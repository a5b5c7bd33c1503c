import type { ReactNode } from 'react'
import { ColumnHeader } from '~web/components/admin-list'
import { useState } from 'react'
import RefreshCw from 'lucide-react/icons/refresh-cw'
import { WEBHOOK_DELIVERY_STATUSES, type Webhook, type WebhookDelivery, type WebhookDeliveryStatus } from '~shared/schemas/webhooks'
import { Badge, type BadgeTone } from '~web/components/ui/badge'
import { Button } from '~web/components/ui/button'
import { SelectField } from '~web/components/ui/filter-fields'
import { Pagination } from '~web/components/ui/pagination'
import { Spinner } from '~web/components/ui/spinner'
import { toastFailure } from '~web/lib/failures'
import { useI18n } from '~web/lib/i18n'
import { formatDateTime } from '~web/lib/time'
import { notify } from '~web/lib/toast'
import { type DeliveryFilter, useDeliveries, useRetryDelivery } from '../api/webhooks'

const STATUS_TONES: Record<WebhookDeliveryStatus, BadgeTone> = { pending: 'blue', delivered: 'green', failed: 'amber', exhausted: 'red' }

/** A cell that, on a phone, says what it is before its value (the header row is hidden there). */
function Cell({ label, children }: { label: string; children: ReactNode }) {
  return (
    <td className="block py-0.5 text-sm md:table-cell md:px-2 md:py-2 md:align-top">
      <span className="text-muted md:hidden">{label}: </span>
      {children}
    </td>
  )
}

/**
 * One endpoint's deliveries, newest first, all of them or those of one status: the event, its
 * status, the attempts so far, the last attempt's answer (code and the first 1,000 characters of
 * the body) and, for any of them, Retry: sent again at once with the same `webhook-id`.
 */
export function Deliveries({ webhook }: { webhook: Webhook }) {
  const { t } = useI18n()
  const [page, setPage] = useState(1)
  const [status, setStatus] = useState<DeliveryFilter>('all')
  const query = useDeliveries(webhook.id, page, status)
  const statusOptions = [
    { value: 'all' as const, label: t('webhooks.deliveries.allStatuses') },
    ...WEBHOOK_DELIVERY_STATUSES.map((value) => ({ value, label: t(`webhooks.deliveries.statuses.${value}`) })),
  ]
  const filter = (value: DeliveryFilter) => {
    setStatus(value)
    setPage(1)
  }
  const retry = useRetryDelivery()

  const again = async (delivery: WebhookDelivery) => {
    try {
      await retry.mutateAsync({ id: webhook.id, deliveryId: delivery.id })
      notify.success(t('webhooks.deliveries.retried'))
    } catch (error) {
      toastFailure(error, t('webhooks.deliveries.retryFailed'))
    }
  }

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="font-semibold">{t('webhooks.deliveries.title')}</h3>
        <Button variant="ghost" size="sm" onClick={() => void query.refetch()} disabled={query.isFetching}>
          <RefreshCw aria-hidden className="size-4" />
          {t('webhooks.deliveries.refresh')}
        </Button>
      </div>
      <SelectField label={t('webhooks.deliveries.columns.status')} value={status} onChange={filter} options={statusOptions} className="w-full sm:w-56" />
      {query.isPending ? (
        <Spinner />
      ) : query.isError && !query.data ? (
        <p role="alert" className="text-sm text-danger dark:text-red-400">
          {t('webhooks.deliveries.loadError')}
        </p>
      ) : query.data.deliveries.length === 0 ? (
        <p className="text-sm text-muted">{t(status === 'all' ? 'webhooks.deliveries.empty' : 'webhooks.deliveries.emptyFiltered')}</p>
      ) : (
        <>
          <table aria-label={t('webhooks.deliveries.list', { url: webhook.url })} className="block w-full text-left text-sm md:table">
            <thead className="hidden border-b border-line text-muted md:table-header-group">
              <tr>
                <ColumnHeader>{t('webhooks.deliveries.columns.event')}</ColumnHeader>
                <ColumnHeader>{t('webhooks.deliveries.columns.status')}</ColumnHeader>
                <ColumnHeader>{t('webhooks.deliveries.columns.attempts')}</ColumnHeader>
                <ColumnHeader>{t('webhooks.deliveries.columns.lastAttempt')}</ColumnHeader>
                <ColumnHeader>{t('webhooks.deliveries.columns.response')}</ColumnHeader>
                <th scope="col" className="px-2 py-2 text-right font-medium">
                  <span className="sr-only">{t('webhooks.deliveries.columns.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody className="block md:table-row-group">
              {query.data.deliveries.map((delivery) => (
                <tr key={delivery.id} data-delivery={delivery.id} className="relative block border-b border-line py-2 last:border-0 md:table-row md:py-0">
                  <td className="block pr-20 md:table-cell md:px-2 md:py-2 md:align-top">
                    <span className="block font-mono text-xs font-medium break-words">{delivery.eventType}</span>
                    <span className="block font-mono text-xs break-words text-muted">{delivery.eventId}</span>
                  </td>
                  <Cell label={t('webhooks.deliveries.columns.status')}>
                    <Badge tone={STATUS_TONES[delivery.status]}>{t(`webhooks.deliveries.statuses.${delivery.status}`)}</Badge>
                    {delivery.status === 'failed' && delivery.nextAttemptAt ? (
                      <span className="block text-xs text-muted">{t('webhooks.deliveries.nextAttempt', { time: formatDateTime(delivery.nextAttemptAt) })}</span>
                    ) : null}
                  </Cell>
                  <Cell label={t('webhooks.deliveries.columns.attempts')}>{delivery.attempts}</Cell>
                  <Cell label={t('webhooks.deliveries.columns.lastAttempt')}>
                    {delivery.lastAttemptAt ? formatDateTime(delivery.lastAttemptAt) : t('webhooks.deliveries.notTried')}
                  </Cell>
                  <Cell label={t('webhooks.deliveries.columns.response')}>
                    <Response delivery={delivery} />
                  </Cell>
                  <td className="absolute top-1 right-0 md:static md:table-cell md:px-2 md:py-2 md:text-right md:align-top">
                    <Button
                      variant="outline"
                      size="sm"
                      aria-label={`${t('webhooks.deliveries.retry')} ${delivery.eventType} ${delivery.eventId}`}
                      onClick={() => void again(delivery)}
                    >
                      {t('webhooks.deliveries.retry')}
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pagination page={page} pages={query.data.pagination.pages} onChange={setPage} hideSingle />
        </>
      )}
    </div>
  )
}

/** The last attempt's status code, and its body (the first 1,000 characters, wrapped) behind a disclosure. */
function Response({ delivery }: { delivery: WebhookDelivery }) {
  const { t } = useI18n()
  if (delivery.responseStatus === null) return <span className="text-muted">{delivery.attempts > 0 ? t('webhooks.deliveries.noResponse') : '—'}</span>
  return (
    <span className="inline-block max-w-full align-top">
      <span className="font-mono">{delivery.responseStatus}</span>
      {delivery.responseBody ? (
        <details className="mt-1">
          <summary className="cursor-pointer text-xs text-muted">{t('webhooks.deliveries.responseBody')}</summary>
          <pre className="mt-1 max-w-full rounded border border-line bg-slate-50 p-2 font-mono text-xs whitespace-pre-wrap wrap-anywhere dark:bg-slate-900">
            {delivery.responseBody}
          </pre>
        </details>
      ) : (
        <span className="block text-xs text-muted">{t('webhooks.deliveries.emptyBody')}</span>
      )}
    </span>
  )
}
