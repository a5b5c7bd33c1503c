import { type Kysely, sql } from 'kysely'

/**
 * Webhooks and the events feed (decisions 0520-0523).
 *
 * - `webhooks`: the endpoints an admin registered; their signing secrets sealed under a key of
 *   AUTH_SECRET (the previous one too, during the 24 hours a rotation keeps it signing).
 * - `webhook_events`: the outbox, one row per event, written in the transaction of the change it
 *   reports. `tx` is the writing transaction's id: the feed hands out only events of transactions
 *   older than every one still running, in (tx, seq) order, so a cursor never skips an event that
 *   commits late.
 * - `webhook_deliveries`: one row per event and endpoint that wants it, written in that same
 *   transaction; leased by the delivery runner (`next_attempt_at` pushed forward) so that several
 *   instances make each attempt once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhooks (
      id text PRIMARY KEY,
      url text NOT NULL,
      description text NOT NULL DEFAULT '',
      events text[] NOT NULL,
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text,
      secret bytea NOT NULL,
      previous_secret bytea,
      previous_secret_until timestamptz,
      failing_since timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE TABLE webhook_events (
      id text PRIMARY KEY,
      tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
      seq bigint GENERATED ALWAYS AS IDENTITY,
      type text NOT NULL,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX webhook_events_feed ON webhook_events (tx, seq);
    CREATE INDEX webhook_events_age ON webhook_events (created_at);
    CREATE TABLE webhook_deliveries (
      id text PRIMARY KEY,
      webhook_id text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      event_id text NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'exhausted')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      last_attempt_at timestamptz,
      response_status integer,
      response_body text,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'failed');
    CREATE INDEX webhook_deliveries_of_webhook ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
    CREATE INDEX webhook_deliveries_of_event ON webhook_deliveries (event_id);
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE IF EXISTS webhook_deliveries;
    DROP TABLE IF EXISTS webhook_events;
    DROP TABLE IF EXISTS webhooks;
  `.execute(db)
}
