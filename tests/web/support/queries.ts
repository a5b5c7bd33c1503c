import { screen } from '@testing-library/react'

/** The message shown under a labelled field (its aria-describedby error), or null. */
export function fieldError(label: string | RegExp): string | null {
  const input = screen.getByLabelText(label)
  const ids = (input.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id.endsWith('-error'))
  const element = ids.length ? document.getElementById(ids[0]!) : null
  return element?.textContent ?? null
}

/** The texts of the toasts on screen. */
export function toastTexts(): string[] {
  return [...document.querySelectorAll('[data-sonner-toast]')].map((toast) => toast.querySelector('[data-title]')?.textContent ?? toast.textContent ?? '')
}

/** Lets pending promises (a lazily loaded toaster, a debounced search) settle. */
export const settle = (ms = 50) => new Promise((resolve) => setTimeout(resolve, ms))
