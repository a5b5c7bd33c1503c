import ipaddr from 'ipaddr.js'

/**
 * Addresses a webhook may never be sent to (contract section 12): link-local ones (169.254.0.0/16,
 * fe80::/10), where clouds answer with an instance's credentials, and the metadata services' other
 * addresses and names, in every spelling: decimal, hexadecimal and octal IPv4 (the URL parser
 * writes them as dotted quads first), and IPv4 inside IPv6 (mapped, compatible, NAT64, 6to4).
 * The form checks a URL's host with it, and the delivery checks every address a name resolves to
 * (decision 0522), so a name pointing at 169.254.169.254 is refused too.
 */

const FORBIDDEN_V4 = [ipaddr.parseCIDR('169.254.0.0/16'), ipaddr.parseCIDR('100.100.100.200/32')] as const
const FORBIDDEN_V6 = [ipaddr.parseCIDR('fe80::/10'), ipaddr.parseCIDR('fd00:ec2::254/128')] as const
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal', 'metadata.tencentyun.com'])

const NAT64 = ipaddr.parseCIDR('64:ff9b::/96')
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16')

function embeddedV4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address()
  const parts = address.parts
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])
  if (parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7]! > 1)) return v4(parts[6]!, parts[7]!)
  if (address.match(NAT64)) return v4(parts[6]!, parts[7]!)
  if (address.match(SIX_TO_FOUR)) return v4(parts[1]!, parts[2]!)
  return null
}

/** Whether an IP address (any textual form ipaddr.js reads) is one a webhook may not reach. */
export function isForbiddenAddress(text: string): boolean {
  const bare = text.replace(/^\[|\]$/g, '')
  if (!ipaddr.isValid(bare)) return false
  const address = ipaddr.parse(bare)
  if (address.kind() === 'ipv4') return FORBIDDEN_V4.some((range) => (address as ipaddr.IPv4).match(range))
  const v6 = address as ipaddr.IPv6
  const inner = embeddedV4(v6)
  if (inner && FORBIDDEN_V4.some((range) => inner.match(range))) return true
  return FORBIDDEN_V6.some((range) => v6.match(range))
}

/** Whether a URL's host (as `URL.hostname` writes it) names an address a webhook may not reach. */
export function isForbiddenHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.+$/, '')
  return METADATA_NAMES.has(host) || isForbiddenAddress(host)
}
