import { type Kysely, sql } from 'kysely'

/**
 * Signing in with an identity people already have (contract section 10, decisions 0510-0519).
 *
 * - `identity_providers`: what admins configure. `kind` is free text checked by the API (a new
 *   kind, SAML, needs no migration of this table); the client secret is sealed with a key derived
 *   from AUTH_SECRET (AES-256-GCM), never stored in plain text; `role_rules` is the list of
 *   `{ claim, value, role }` as JSON.
 * - `federated_identities`: an identity is `(provider_id, subject)`, never an e-mail; one account
 *   holds at most one identity of a provider. Deleting a provider deletes its identities, deleting
 *   an account deletes its own.
 * - `federation_transactions`: one browser's sign-in through a provider, from the redirect to the
 *   handoff: keyed by the SHA-256 of the browser's cookie, single-use at each step (`callback_at`,
 *   `handoff_used_at`), dead after `expires_at`. `result` holds the checked claims between the
 *   callback and the handoff (never an upstream token).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE identity_providers (
      id text PRIMARY KEY,
      kind text NOT NULL,
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 50),
      enabled boolean NOT NULL DEFAULT true,
      show_on_sign_in boolean NOT NULL DEFAULT true,
      issuer text,
      tenant text,
      client_id text,
      client_secret_sealed bytea,
      scopes text[],
      base_url text,
      saml_metadata_xml text,
      email_domains text[] NOT NULL DEFAULT '{}',
      trust_email boolean NOT NULL DEFAULT false,
      allow_sign_up boolean NOT NULL DEFAULT false,
      default_role text NOT NULL DEFAULT 'CLIENT' CHECK (default_role IN ('DEVELOPER', 'MODERATOR', 'CLIENT')),
      role_rules jsonb NOT NULL DEFAULT '[]',
      sync_roles boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX identity_providers_created_at ON identity_providers (created_at, id);

    CREATE TABLE federated_identities (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      provider_id text NOT NULL REFERENCES identity_providers (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      subject text NOT NULL,
      email text,
      linked_at timestamptz NOT NULL,
      last_used_at timestamptz,
      UNIQUE (provider_id, subject),
      UNIQUE (provider_id, user_id)
    );
    CREATE INDEX federated_identities_user ON federated_identities (user_id);

    CREATE TABLE federation_transactions (
      id bytea PRIMARY KEY,
      provider_id text NOT NULL REFERENCES identity_providers (id) ON DELETE CASCADE,
      purpose text NOT NULL CHECK (purpose IN ('sign-in', 'link')),
      link_user_id uuid REFERENCES users (id) ON DELETE CASCADE,
      state text NOT NULL,
      nonce text NOT NULL,
      code_verifier text NOT NULL,
      return_to text NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      callback_at timestamptz,
      handoff_hash bytea UNIQUE,
      handoff_expires_at timestamptz,
      handoff_used_at timestamptz,
      result jsonb,
      CHECK ((purpose = 'link') = (link_user_id IS NOT NULL))
    );
    CREATE INDEX federation_transactions_expires_at ON federation_transactions (expires_at);
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE federation_transactions;
    DROP TABLE federated_identities;
    DROP TABLE identity_providers;
  `.execute(db)
}
