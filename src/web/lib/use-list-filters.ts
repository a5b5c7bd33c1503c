import { useState } from 'react'
import { useDebouncedValue } from './use-debounced-value'

/**
 * Search, filters and page of a list. The search is debounced (500 ms) before it reaches the
 * query; any change of search or filter goes back to page 1.
 */
export function useListFilters<F extends Record<string, string>>(initialFilters: F) {
  const [search, setSearchText] = useState('')
  const [filters, setFilterValues] = useState(initialFilters)
  const [page, setPage] = useState(1)
  const debouncedSearch = useDebouncedValue(search.trim())
  return {
    search,
    debouncedSearch,
    filters,
    page,
    setPage,
    setSearch(value: string) {
      setSearchText(value)
      setPage(1)
    },
    setFilter<K extends keyof F>(key: K, value: F[K]) {
      setFilterValues((current) => ({ ...current, [key]: value }))
      setPage(1)
    },
    /** A search or filter narrows the list (the empty state then says so). */
    isFiltered: search.trim() !== '' || Object.entries(filters).some(([key, value]) => value !== initialFilters[key]),
  }
}
