import { type Kysely, sql } from 'kysely'

/**
 * Automation (contract section 11, decisions 0500-0509):
 *
 * - `oidc_applications.type` admits `service`: an application that acts on its own (client
 *   credentials, API keys), never signs a person in. It holds `scopes` (a non-empty subset of the
 *   admin API's scopes) and either a client secret's hash or a public key set (`jwks`, for
 *   `private_key_jwt`), never both. `device_flow` marks a public or confidential application that
 *   may use the device authorization grant (RFC 8628).
 * - `api_keys`: a service application's keys, each kept as the SHA-256 of its secret (256 random
 *   bits: a plain hash is enough, as for client secrets), with the first 12 characters to
 *   recognise it by, an optional expiry and its last use (written at most once a minute).
 * - `activities.actor_application_id`: the service application that made a change, beside its
 *   name as it was then in `actor_name` (the application may be renamed or deleted later).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE oidc_applications DROP CONSTRAINT oidc_applications_type_check;
    ALTER TABLE oidc_applications DROP CONSTRAINT oidc_applications_check;
    ALTER TABLE oidc_applications
      ADD COLUMN scopes text[] NOT NULL DEFAULT '{}',
      ADD COLUMN jwks jsonb,
      ADD COLUMN device_flow boolean NOT NULL DEFAULT false;
    ALTER TABLE oidc_applications ADD CONSTRAINT oidc_applications_type_check CHECK (type IN ('confidential', 'public', 'service'));
    ALTER TABLE oidc_applications ADD CONSTRAINT oidc_applications_credentials_check CHECK (
      CASE type
        WHEN 'confidential' THEN secret_hash IS NOT NULL AND jwks IS NULL AND cardinality(scopes) = 0
        WHEN 'public' THEN secret_hash IS NULL AND jwks IS NULL AND cardinality(scopes) = 0
        ELSE (secret_hash IS NULL) <> (jwks IS NULL) AND cardinality(scopes) > 0 AND NOT device_flow
      END
    );

    CREATE TABLE api_keys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      application_id text NOT NULL REFERENCES oidc_applications (id) ON DELETE CASCADE,
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
      prefix text NOT NULL,
      secret_hash bytea NOT NULL UNIQUE,
      created_at timestamptz NOT NULL,
      expires_at timestamptz,
      last_used_at timestamptz
    );
    CREATE INDEX api_keys_application_created_at ON api_keys (application_id, created_at, id);

    ALTER TABLE activities ADD COLUMN actor_application_id text;
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE activities DROP COLUMN actor_application_id;
    DROP TABLE api_keys;
    DELETE FROM oidc_applications WHERE type = 'service';
    ALTER TABLE oidc_applications DROP CONSTRAINT oidc_applications_credentials_check;
    ALTER TABLE oidc_applications DROP CONSTRAINT oidc_applications_type_check;
    ALTER TABLE oidc_applications DROP COLUMN scopes, DROP COLUMN jwks, DROP COLUMN device_flow;
    ALTER TABLE oidc_applications ADD CONSTRAINT oidc_applications_type_check CHECK (type IN ('confidential', 'public'));
    ALTER TABLE oidc_applications ADD CONSTRAINT oidc_applications_check CHECK ((type = 'confidential') = (secret_hash IS NOT NULL));
  `.execute(db)
}
