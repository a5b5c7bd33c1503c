import type { ReactNode } from 'react'
import { Tabs as RadixTabs } from 'radix-ui'

export const Tabs = RadixTabs.Root

export function TabList({ children, label }: { children: ReactNode; label: string }) {
  return (
    <RadixTabs.List aria-label={label} className="mb-4 inline-flex flex-wrap gap-1 rounded-lg bg-subtle p-1">
      {children}
    </RadixTabs.List>
  )
}

export function Tab({ value, children }: { value: string; children: ReactNode }) {
  return (
    <RadixTabs.Trigger
      value={value}
      className="rounded-md px-4 py-1.5 text-sm font-medium text-muted data-[state=active]:bg-card data-[state=active]:text-fg data-[state=active]:shadow-sm"
    >
      {children}
    </RadixTabs.Trigger>
  )
}

export const TabPanel = RadixTabs.Content
