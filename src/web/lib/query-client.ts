import { QueryCache, QueryClient } from '@tanstack/react-query'
import { toastFailure } from './failures'
import { t } from './i18n'

/** Data queries retry once and do not refetch on window focus; failures toast. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: 1, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
    queryCache: new QueryCache({ onError: (error) => toastFailure(error, t('common.unknownError')) }),
  })
}

export const queryClient = createQueryClient()
