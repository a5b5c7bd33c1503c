import { type Kysely, sql } from 'kysely'

/**
 * Signing in over SAML 2.0 (contract section 10, decisions 0540 and 0541):
 *
 * - `identity_providers.saml_email_attribute`, `saml_name_attribute`: the attribute an admin named
 *   for the e-mail and the name; null reads the contract's default lists.
 * - `federation_transactions_request`: a SAML response comes back by a cross-site POST without the
 *   browser's cookie; it finds its transaction by `InResponseTo`, the request ID kept in `state`.
 * - `saml_assertion_ids`: every assertion ID accepted, per provider, until its `NotOnOrAfter` has
 *   passed (and the allowed skew): shared by every instance, so no assertion is accepted twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE identity_providers ADD COLUMN saml_email_attribute text, ADD COLUMN saml_name_attribute text;
    CREATE INDEX federation_transactions_request ON federation_transactions (provider_id, state);
    CREATE TABLE saml_assertion_ids (
      provider_id text NOT NULL REFERENCES identity_providers (id) ON DELETE CASCADE,
      assertion_id text NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (provider_id, assertion_id)
    );
    CREATE INDEX saml_assertion_ids_expiry ON saml_assertion_ids (expires_at);
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE IF EXISTS saml_assertion_ids;
    DROP INDEX IF EXISTS federation_transactions_request;
    ALTER TABLE identity_providers DROP COLUMN IF EXISTS saml_name_attribute, DROP COLUMN IF EXISTS saml_email_attribute;
  `.execute(db)
}
