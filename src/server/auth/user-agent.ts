import Bowser from 'bowser'

/**
 * What a User-Agent says about the device, in the words people know: "Chrome 131", "macOS".
 * Parsed by Bowser; whatever it cannot name is null. The notice of a new sign-in compares the
 * browser without its version (an update is not a new device) and the system (docs/decisions/0311).
 */
export interface DeviceDescription {
  /** The browser and its major version ("Chrome 131"), or its name alone, or null. */
  browser: string | null
  /** The operating system's name ("macOS", "Windows", "Android"), or null. */
  os: string | null
  /** Browser name and system, without versions: what "the same browser and system" compares. */
  kind: string
}

/** Longer strings are not User-Agents anyone sends; sessions keep the first 500 characters. */
const MAX_LENGTH = 500

/**
 * Descriptions already made, by User-Agent: an account's sessions mostly share a few, and parsing
 * one costs tens of microseconds, a list of 100 sessions milliseconds. Bounded: emptied when full.
 */
const described = new Map<string, DeviceDescription>()
const CACHE_SIZE = 2000

export function describeUserAgent(userAgent: string | null | undefined): DeviceDescription {
  const key = userAgent ? userAgent.slice(0, MAX_LENGTH) : ''
  let description = described.get(key)
  if (!description) {
    if (described.size >= CACHE_SIZE) described.clear()
    description = parse(key)
    described.set(key, description)
  }
  return description
}

function parse(userAgent: string): DeviceDescription {
  const parsed = userAgent ? Bowser.parse(userAgent) : undefined
  const name = parsed?.browser.name?.trim() || null
  const major = parsed?.browser.version?.split('.')[0]?.trim()
  const os = parsed?.os.name?.trim() || null
  return {
    browser: name && major && /^\d+$/.test(major) ? `${name} ${major}` : name,
    os,
    kind: `${name ?? ''}\u0000${os ?? ''}`,
  }
}
