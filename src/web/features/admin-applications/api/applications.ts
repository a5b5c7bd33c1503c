import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { Application, CreateApplicationInput, CreatedApplication, UpdateApplicationInput } from '~shared/schemas/applications'
import { api } from '~web/lib/api-client'

/** The admin's calls on applications (contract section 9): one list, refreshed after every change. */

const applicationPath = (id: string) => `/admin/applications/${encodeURIComponent(id)}`

export async function getApplications(signal?: AbortSignal): Promise<Application[]> {
  const { data } = await api.get<{ applications: Application[] }>('/admin/applications', { signal })
  return data.applications
}

export const applicationsQueryOptions = () => queryOptions({ queryKey: ['applications'], queryFn: ({ signal }) => getApplications(signal) })

export function useApplications() {
  return useQuery(applicationsQueryOptions())
}

export async function getApplication(id: string, signal?: AbortSignal): Promise<Application> {
  const { data } = await api.get<{ application: Application }>(applicationPath(id), { signal })
  return data.application
}

/** One application, for its page; under the list's key, so every change refreshes it too. */
export function useApplication(id: string) {
  return useQuery({ queryKey: ['applications', id], queryFn: ({ signal }) => getApplication(id, signal) })
}

/** POST /admin/applications: a confidential application's secret is in this answer only. */
export async function createApplication(input: CreateApplicationInput): Promise<CreatedApplication> {
  const { data } = await api.post<CreatedApplication>('/admin/applications', input)
  return data
}

export async function updateApplication(id: string, changes: UpdateApplicationInput): Promise<Application> {
  const { data } = await api.put<{ application: Application }>(applicationPath(id), changes)
  return data.application
}

/** POST /admin/applications/{id}/secret: the new secret, shown once; the old one stops working. */
export async function replaceApplicationSecret(id: string): Promise<string> {
  const { data } = await api.post<{ clientSecret: string }>(`${applicationPath(id)}/secret`)
  return data.clientSecret
}

export async function deleteApplication(id: string): Promise<void> {
  await api.delete(applicationPath(id))
}

function useRefreshing<A, R>(mutationFn: (args: A) => Promise<R>) {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['applications'] }) })
}

export const useCreateApplication = () => useRefreshing(createApplication)
export const useUpdateApplication = () => useRefreshing(({ id, changes }: { id: string; changes: UpdateApplicationInput }) => updateApplication(id, changes))
export const useReplaceApplicationSecret = () => useRefreshing(replaceApplicationSecret)
export const useDeleteApplication = () => useRefreshing(deleteApplication)
