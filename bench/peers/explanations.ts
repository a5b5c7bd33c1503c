/**
 * What each system does per request, from its source (the product's under src/server, Better
 * Auth's under node_modules/better-auth, @better-auth/*, better-call), for docs/benchmarks/peers.md.
 * Keep in step with bench/peers/better-auth.ts and with the product's routes.
 */

export const SIGN_IN_WORK = [
  '- **Accounts** (`POST /api/auth/login`): Fastify parses the body and zod validates it; one named statement reads the',
  "  credentials by e-mail (unique index); the Argon2id verification waits for one of the hasher's slots (one per core);",
  '  one named statement calls `start_session`, which inserts the session, the first refresh token (its SHA-256) and the',
  '  "Logged in" activity entry (its search text under a trigram index, the counters\' trigger) in one transaction; then',
  '  the HS256 access token (fast-jwt) and the CSRF token (HMAC) are signed. Two statements.',
  '- **Better Auth** (`POST /api/auth/sign-in/email`): its Node handler turns the request into a Fetch API `Request` and',
  '  builds the router of all its endpoints for it (see the session check); the origin check; zod; the user by e-mail,',
  "  then its accounts by user id; the same Argon2id verification (the product's hasher, `bench/peers/better-auth.ts`);",
  "  the admin plugin's hook before a session is created reads the user again by id, to refuse a banned one; the session",
  '  row is inserted and returned (its token, 32 random characters, stored as it is); the session cookie is signed with',
  '  HMAC-SHA256 through WebCrypto. Four statements, each unnamed (parsed and planned on every run); no transaction, no',
  '  activity entry, no refresh token.',
  '- Both spend about 16 ms of CPU on Argon2id per sign-in, two at a time on the two cores, so the ratio stays near 1;',
  "  the CPU columns show what each spends besides. In a profile of Better Auth's sign-in (in one process, without HTTP,",
  "  2026-11-24) node-postgres's socket writes took about 1.75 ms of the main thread per sign-in: one write per",
  '  statement, four statements, and a write costs some 0.4 ms of CPU on this virtual machine; the product sends two.',
]

export const SESSION_CHECK_WORK = [
  '- **Accounts** (`GET /api/auth/me`, a bearer access token): the HS256 signature and expiry checked synchronously',
  '  (fast-jwt, about 10 µs: docs/decisions/0002); one named statement, sessions joined to users by primary keys, live and',
  "  unexpired, parsed and planned once per connection (docs/decisions/0009); the account's status checked; the answer",
  "  written by Fastify's compiled serializer.",
  '- **Better Auth** (`GET /api/auth/get-session`, its session cookie): the Node handler converts the request into a Fetch',
  '  API `Request` and builds its router afresh (`router()` in `better-auth/dist/api/index.mjs`, called from the handler',
  "  in `auth/base.mjs` on every request: `getEndpoints` over every endpoint and plugin, better-call's `createRouter`",
  "  adding each route to a rou3 tree); parses the cookies; checks the session cookie's HMAC-SHA256 through WebCrypto",
  '  (importing the key, then verifying: both asynchronous, on every request); reads the session by token, then its user',
  '  by id: two unnamed statements, parsed and planned by PostgreSQL every time (one joined statement with',
  '  `advanced.database.joins`, the "joins on" row); checks the expiry (extending the session at most once a day,',
  '  `updateAge`, which no request here reaches); answers through a Fetch API `Response` written back to node:http.',
  '- **Better Auth, cookie cache**: the same, but instead of the two statements it decodes a second cookie holding the',
  '  session and the user (base64 JSON) and checks its HMAC-SHA256: no database at all while the cookie is younger than',
  '  `maxAge`.',
  '- Where the time goes in Better Auth, from `npx tsx bench/peers/profile.ts` (2026-11-24, two runs each, the machine',
  "  loaded by other work: shares of the main thread's CPU, not rates): building the router for the request 5-10%;",
  '  checking the signed cookie through WebCrypto 9-13%; garbage collection 9-13%; socket writes 13-18% with database',
  "  sessions (the two statements' messages besides the answer), 2-6% with the cookie cache; Node's own code (the Fetch",
  "  API objects, WebCrypto, HTTP) 33-53%. The product's server spends its share thinly over Fastify, the token check,",
  '  the query builder and the driver, no part above 3% (docs/benchmarks/auth.md).',
]

export const COOKIE_CACHE_GIVES_UP = (seconds: number) => [
  `What the cookie cache gives up: for up to ${seconds} s after the cookie was set (its \`maxAge\`), a session that was`,
  'signed out, revoked by an admin or by "sign out everywhere", or whose user was banned, deleted or given another role,',
  'still passes getSession with the cookies it held, on every server: the "Old session refused after" column above. The',
  'product checks the database on every request, because the product wants sign-out, revocation and status changes to',
  'take effect on the very next one; its cost is in the full-speed rows (server and PostgreSQL CPU per answer).',
]

export const SIGN_OUT_WORK = [
  '- **Accounts** (`POST /api/auth/logout`, the bearer token and the CSRF header): the session check above, then one',
  '  transaction (`commitChange`): the session marked revoked and a "Logged out" activity entry written.',
  '- **Better Auth** (`POST /api/auth/sign-out`): the signed cookie checked; the session and its user read (two',
  "  statements); the session read again and deleted (two); the user's accounts read, to find a provider to sign out",
  '  of (one). Five statements, no transaction, no record of the sign-out.',
  '- Both refuse the old session on the very next request: the product finds the session revoked (401), Better Auth finds',
  '  none (200 with `null`). With the cookie cache, Better Auth answers the session from the old cookies.',
]

export const SEARCH_WORK = [
  '- **Accounts** (`GET /api/admin/users?search=…&limit=10`): the session check; the role from the shared permission',
  "  table; for a term without three letters or digits in a row, the planner's estimate of its matches (an `EXPLAIN`);",
  "  the page's ids through the trigram index, the index of character pairs or the newest-first index, whichever suits",
  "  the term; the page's rows by id; the total, exact up to 1,000 matches and the planner's estimate beyond",
  '  (docs/decisions/0102, 0103). It matches the name or the e-mail, case-insensitively, `%` and `_` searched for as typed.',
  '- **Better Auth** (`GET /api/auth/admin/list-users?searchValue=…&searchField=email&searchOperator=contains`',
  '  `&sortBy=createdAt&sortDirection=desc&limit=10`): the session check (two statements); the admin permission from',
  '  the user\'s role; `SELECT * FROM "user" WHERE email LIKE \'%term%\' ORDER BY "createdAt" DESC LIMIT 10`, then',
  '  `SELECT count(id) FROM "user" WHERE email LIKE \'%term%\'`. The schema its migrations create has no index that a',
  "  `LIKE '%…%'` or an order by creation time can use, so each of the two reads every user (the first also sorts the",
  '  matches): the time grows with the table, whatever the term. It searches one field per call (the e-mail by default,',
  '  or the name), case-sensitively (`LIKE`, not `ILIKE`: "John" finds no e-mail, and in names "john" no John), and a',
  '  `%` or `_` in the term is a wildcard. In this data every word of a name is in its e-mail, lower-case, so both',
  '  answer the same ten users for these terms ("Same page").',
  "- The totals differ where the product's is an estimate (beyond 1,000 matches). For a common short term the estimate",
  "  is PostgreSQL's default guess for a condition it cannot judge (`strpos(…) > 0`): a third of the table, whatever",
  '  the term. Better Auth counts exactly, by reading every user.',
]

export const PLANS_NOTE = [
  'The product names only its key lookups (docs/decisions/0009): its session check goes generic and keeps its plan. Its',
  'searches stay unnamed, so each is planned with its term; named, some would settle on a generic plan unlike the one',
  'their values get (the rows where the plan after 10 named runs differs). Better Auth sends every statement unnamed',
  "(Kysely's PostgreSQL dialect over node-postgres): nothing goes generic, and every statement is parsed and planned",
  "on every request, which is part of its session check's PostgreSQL CPU.",
]

/** Why Accounts is behind on a measure, where it is: shown only for the measures where it is. */
export const WHY_BEHIND: Record<string, string> = {
  signIn:
    'a sign-in writes more in the product: the refresh token and the "Logged in" activity entry (into a trigram index) besides the session, where Better Auth inserts only a session row and keeps no record.',
  signOut: 'a sign-out in the product is a transaction that also writes the "Logged out" activity entry; Better Auth deletes the row and records nothing.',
  searchShort:
    'a term without a trigram costs the product a planner estimate and, when it is common, a walk of the newest users testing each for the term; for a very common one-letter term that walk is short, and a sequential scan of a small table is cheap too.',
  searchLong: "on a small table a sequential scan costs little, and the product's two-step page (ids, then rows) and its count are more statements.",
  cookieCache:
    'with its cookie cache Better Auth does not read the database at all to check a session, and so does not see a sign-out or a ban for up to five minutes; the product reads it on every request so that they take effect at once.',
}
