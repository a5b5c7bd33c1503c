import type { IdentityProviderKind, SignInProvider } from '~shared/schemas/identity-providers'
import type { AppContext } from '~server/context'
import * as rows from '~server/data/identity-providers/identity-providers'

/** The enabled providers shown on the sign-in and registration pages. */
export async function listSignInProviders(ctx: AppContext): Promise<SignInProvider[]> {
  return (await rows.listSignInProviders(ctx.db)).map((row) => ({ id: row.id, name: row.name, kind: row.kind as IdentityProviderKind }))
}

/**
 * The enabled provider that signs in people of this address's domain, or null. It reads the
 * providers only, never the accounts: the answer is the same whether an account exists or not.
 */
export async function discoverProvider(ctx: AppContext, email: string): Promise<{ id: string; name: string } | null> {
  const domain = email.slice(email.lastIndexOf('@') + 1)
  return (await rows.findProviderByDomain(ctx.db, domain)) ?? null
}
