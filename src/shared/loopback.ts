/**
 * This machine's own names, one list for every rule that treats them apart: the host check lets
 * them through (decision 0305), an application's redirect URI may use plain http on them (RFC 8252),
 * the server offers its outbox page only when it listens on one of them, and production on plain
 * http is warned about everywhere else.
 */

/** The loopback names as a URL's `hostname` writes them (an IPv6 address in brackets). */
export const LOOPBACK_HOSTNAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]']

/**
 * Whether a host is this machine: a loopback name or any address of 127.0.0.0/8, written bare
 * (`HOST=::1`) or as a URL's hostname writes it (`[::1]`), in any case.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1')
  return name === 'localhost' || name === '::1' || /^127(?:\.\d{1,3}){3}$/.test(name)
}
