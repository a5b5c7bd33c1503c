/** The URL `value` names, or null where it names none (the URL fields' schemas check what it holds). */
export function parsedUrl(value: string): URL | null {
  try {
    return new URL(value)
  } catch {
    return null
  }
}
