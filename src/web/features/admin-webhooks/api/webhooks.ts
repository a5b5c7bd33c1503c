import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { CreatedWebhook, CreateWebhookInput, UpdateWebhookInput, Webhook, WebhookDelivery, WebhookDeliveryStatus } from '~shared/schemas/webhooks'
import type { Pagination } from '~shared/schemas/user'
import { api } from '~web/lib/api-client'

/**
 * The admin's calls on webhook endpoints (contract section 12): one list, refreshed after every
 * change; each endpoint's deliveries under its key, so a test event or a retry refreshes them.
 */

const webhookPath = (id: string) => `/admin/webhooks/${encodeURIComponent(id)}`
const WEBHOOKS = ['webhooks'] as const
const deliveriesKey = (id: string) => ['webhooks', id, 'deliveries']

/** How many deliveries a page of an endpoint's list shows. */
export const DELIVERIES_PER_PAGE = 10

export async function getWebhooks(signal?: AbortSignal): Promise<Webhook[]> {
  const { data } = await api.get<{ webhooks: Webhook[] }>('/admin/webhooks', { signal })
  return data.webhooks
}

export function useWebhooks() {
  return useQuery({ queryKey: WEBHOOKS, queryFn: ({ signal }) => getWebhooks(signal) })
}

/** POST /admin/webhooks: the endpoint's signing secret is in this answer only. */
export async function createWebhook(input: CreateWebhookInput): Promise<CreatedWebhook> {
  const { data } = await api.post<CreatedWebhook>('/admin/webhooks', input)
  return data
}

export async function updateWebhook(id: string, changes: UpdateWebhookInput): Promise<Webhook> {
  const { data } = await api.put<{ webhook: Webhook }>(webhookPath(id), changes)
  return data.webhook
}

/** POST /admin/webhooks/{id}/secret: the new secret, shown once; the old one signs beside it for 24 hours. */
export async function replaceWebhookSecret(id: string): Promise<string> {
  const { data } = await api.post<{ secret: string }>(`${webhookPath(id)}/secret`)
  return data.secret
}

export async function deleteWebhook(id: string): Promise<void> {
  await api.delete(webhookPath(id))
}

/** A `webhook.test` event to this endpoint alone (202: it is queued, not yet delivered). */
export async function sendTestEvent(id: string): Promise<void> {
  await api.post(`${webhookPath(id)}/test`)
}

export interface DeliveryPage {
  deliveries: WebhookDelivery[]
  pagination: Pagination
}

/** Which deliveries a list shows: those of one status, or all of them. */
export type DeliveryFilter = WebhookDeliveryStatus | 'all'

export async function getDeliveries(id: string, page: number, status: DeliveryFilter, signal?: AbortSignal): Promise<DeliveryPage> {
  const query = new URLSearchParams({ page: String(page), limit: String(DELIVERIES_PER_PAGE) })
  if (status !== 'all') query.set('status', status)
  const { data } = await api.get<DeliveryPage>(`${webhookPath(id)}/deliveries?${query}`, { signal })
  return data
}

/** Sends a delivery again at once, with the same `webhook-id`. */
export async function retryDelivery(id: string, deliveryId: string): Promise<void> {
  await api.post(`${webhookPath(id)}/deliveries/${encodeURIComponent(deliveryId)}/retry`)
}

/**
 * One page of an endpoint's deliveries. While one of them waits for an attempt (pending, or failed
 * and to be tried again), the page asks again every few seconds, so its outcome shows by itself.
 */
export function useDeliveries(id: string, page: number, status: DeliveryFilter) {
  return useQuery({
    queryKey: [...deliveriesKey(id), status, page],
    queryFn: ({ signal }) => getDeliveries(id, page, status, signal),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.deliveries.some((delivery) => delivery.status === 'pending' || delivery.status === 'failed') ? 3_000 : false),
  })
}

function useRefreshing<A, R>(mutationFn: (args: A) => Promise<R>) {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn, onSuccess: () => queryClient.invalidateQueries({ queryKey: WEBHOOKS }) })
}

export const useCreateWebhook = () => useRefreshing(createWebhook)
export const useUpdateWebhook = () => useRefreshing(({ id, changes }: { id: string; changes: UpdateWebhookInput }) => updateWebhook(id, changes))
export const useReplaceWebhookSecret = () => useRefreshing(replaceWebhookSecret)
export const useDeleteWebhook = () => useRefreshing(deleteWebhook)
export const useSendTestEvent = () => useRefreshing(sendTestEvent)
export const useRetryDelivery = () => useRefreshing(({ id, deliveryId }: { id: string; deliveryId: string }) => retryDelivery(id, deliveryId))
