import { useEffect, useLayoutEffect, useRef, useState } from 'react'
import { useSearchParams } from 'react-router'
import { useDebouncedValue } from './use-debounced-value'

/**
 * Search, filters (the sort included) and page of a list, kept in the page's address: a view can
 * be bookmarked or shared, and the browser's back and forward buttons step through the views. Only
 * values other than the defaults appear in the address (`?role=ADMIN&sort=name&order=asc&page=2`).
 *
 * The search is debounced (500 ms) before it reaches the address and the query, and replaces the
 * current history entry (typing is not a trail of views); a filter, sort or page change adds one.
 * Any change of search or filter goes back to page 1. A value in the address that a filter does
 * not offer (an edited or outdated bookmark) counts as the default.
 */
export function useListFilters<F extends Record<string, string>>(defaults: F, allowed: { [K in keyof F]?: readonly string[] } = {}) {
  const [params, setParams] = useSearchParams()
  const addressSearch = params.get('search') ?? ''
  const filters = { ...defaults }
  for (const key of Object.keys(defaults) as (keyof F & string)[]) {
    const value = params.get(key)
    if (value !== null && (allowed[key]?.includes(value) ?? true)) filters[key] = value as F[typeof key]
  }
  const page = /^[1-9]\d{0,5}$/.test(params.get('page') ?? '') ? Number(params.get('page')) : 1

  const [search, setSearchText] = useState(addressSearch)
  const debouncedSearch = useDebouncedValue(search.trim())
  /** The search last written to the address by typing, to tell it from a move through history. */
  const written = useRef(addressSearch)

  // The address as last asked for: a filter changed before the router has shown the settled
  // search's address (or the other way round) must build on it, not on the address rendered.
  const requestedRef = useRef(params)
  const address = params.toString()
  // The address moved (an update arrived, or the back button): it is the base again, before any
  // event of the new page can ask for a change.
  useLayoutEffect(() => {
    requestedRef.current = new URLSearchParams(address)
  }, [address])

  /** The address with these values changed (undefined or the default: left out). */
  const update = (changes: Record<string, string | undefined>, replace = false) => {
    const next = new URLSearchParams(requestedRef.current)
    for (const [key, value] of Object.entries(changes)) {
      const fallback = key === 'page' ? '1' : key === 'search' ? '' : defaults[key]
      if (value === undefined || value === fallback) next.delete(key)
      else next.set(key, value)
    }
    requestedRef.current = next
    setParams(next, { replace })
  }

  // The typed search reaches the address once it settles.
  useEffect(() => {
    if (debouncedSearch === written.current) return
    written.current = debouncedSearch
    if (debouncedSearch !== addressSearch) update({ search: debouncedSearch, page: undefined }, true)
    // Only a settled search writes: the address changing (back button) must not write it back.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [debouncedSearch])

  // The back and forward buttons bring their search back into the box.
  useEffect(() => {
    if (addressSearch === written.current) return
    written.current = addressSearch
    setSearchText(addressSearch)
  }, [addressSearch])

  return {
    search,
    /** The search the query uses: the address's, which the typed one reaches once it settles. */
    debouncedSearch: addressSearch,
    filters,
    page,
    setPage(value: number) {
      update({ page: String(value) })
    },
    setSearch(value: string) {
      setSearchText(value)
    },
    setFilter<K extends keyof F & string>(key: K, value: F[K]) {
      update({ [key]: value, page: undefined })
    },
    /** Several filters at once (a sort's key and order), as one step of history. */
    setFilters(changes: Partial<F>) {
      update({ ...(changes as Record<string, string>), page: undefined })
    },
    /** A search or filter narrows the list (the empty state then says so). */
    isFiltered: search.trim() !== '' || Object.entries(filters).some(([key, value]) => value !== defaults[key]),
  }
}

export type ListFilters<F extends Record<string, string>> = ReturnType<typeof useListFilters<F>>
