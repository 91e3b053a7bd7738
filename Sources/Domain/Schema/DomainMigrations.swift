import Storage

/// The domain's tables. Portable SQL: text ids made by the application, integer millisecond
/// timestamps, `ON CONFLICT` upserts, partial unique indexes. A shipped migration is never
/// edited; changes are new migrations appended here.
public enum DomainMigrations {
    public static let all: [Migration] = [
        Migration(
            id: "0200_accounts",
            sql: """
                CREATE TABLE accounts (
                    id TEXT PRIMARY KEY,
                    obfuscated_id TEXT NOT NULL UNIQUE,
                    email TEXT,
                    email_verified INTEGER NOT NULL DEFAULT 0,
                    username TEXT UNIQUE,
                    password_hash TEXT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                );
                CREATE INDEX accounts_email ON accounts (email);
                CREATE UNIQUE INDEX accounts_verified_email ON accounts (email) WHERE email_verified = 1;

                CREATE TABLE app_users (
                    app_user_id TEXT PRIMARY KEY,
                    account_id TEXT NOT NULL REFERENCES accounts (id),
                    home_account_id TEXT NOT NULL REFERENCES accounts (id),
                    created_at BIGINT NOT NULL,
                    last_seen_at BIGINT NOT NULL
                );
                CREATE INDEX app_users_account ON app_users (account_id);

                CREATE TABLE devices (
                    account_id TEXT NOT NULL REFERENCES accounts (id),
                    device_id TEXT NOT NULL,
                    app_user_id TEXT,
                    created_at BIGINT NOT NULL,
                    last_seen_at BIGINT NOT NULL,
                    signed_out_at BIGINT,
                    PRIMARY KEY (account_id, device_id)
                );

                CREATE TABLE sessions (
                    id TEXT PRIMARY KEY,
                    account_id TEXT NOT NULL REFERENCES accounts (id),
                    device_id TEXT,
                    family_id TEXT NOT NULL,
                    access_token_hash TEXT NOT NULL UNIQUE,
                    refresh_token_hash TEXT NOT NULL UNIQUE,
                    access_expires_at BIGINT NOT NULL,
                    refresh_expires_at BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    rotated_at BIGINT,
                    revoked_at BIGINT
                );
                CREATE INDEX sessions_account_device ON sessions (account_id, device_id);
                CREATE INDEX sessions_family ON sessions (family_id);
                """),
        Migration(
            id: "0210_purchases",
            sql: """
                CREATE TABLE purchases (
                    id TEXT PRIMARY KEY,
                    platform TEXT NOT NULL,
                    external_id TEXT NOT NULL,
                    product_id TEXT NOT NULL,
                    status TEXT NOT NULL,
                    expires_at BIGINT,
                    environment TEXT,
                    observed_at BIGINT NOT NULL,
                    account_id TEXT REFERENCES accounts (id),
                    purchaser_email TEXT,
                    customer_id TEXT,
                    owner_hint TEXT,
                    app_user_id TEXT,
                    attribution TEXT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    UNIQUE (platform, external_id)
                );
                CREATE INDEX purchases_account ON purchases (account_id);
                CREATE INDEX purchases_email ON purchases (purchaser_email);

                CREATE TABLE purchase_aliases (
                    platform TEXT NOT NULL,
                    alias TEXT NOT NULL,
                    purchase_id TEXT NOT NULL REFERENCES purchases (id),
                    PRIMARY KEY (platform, alias)
                );

                CREATE TABLE checkouts (
                    session_id TEXT PRIMARY KEY,
                    checkout_context_id TEXT UNIQUE,
                    app_user_id TEXT,
                    plan TEXT,
                    price_id TEXT NOT NULL,
                    mode TEXT NOT NULL,
                    email TEXT,
                    redirect_url TEXT,
                    context TEXT NOT NULL,
                    purchase_id TEXT REFERENCES purchases (id),
                    status TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                );
                """),
        Migration(
            id: "0220_redemption_codes",
            sql: """
                CREATE TABLE redemption_codes (
                    id TEXT PRIMARY KEY,
                    purchase_id TEXT NOT NULL REFERENCES purchases (id),
                    seq INTEGER NOT NULL,
                    code_hash TEXT NOT NULL UNIQUE,
                    code_sealed BLOB NOT NULL,
                    hint TEXT NOT NULL,
                    status TEXT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    redeemed_at BIGINT,
                    redeemed_account_id TEXT REFERENCES accounts (id),
                    redeemed_app_user_id TEXT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                );
                CREATE UNIQUE INDEX redemption_codes_one_live ON redemption_codes (purchase_id) WHERE status = 'live';
                CREATE UNIQUE INDEX redemption_codes_purchase_seq ON redemption_codes (purchase_id, seq);

                CREATE TABLE resend_throttle (
                    throttle_key TEXT PRIMARY KEY,
                    last_sent_at BIGINT NOT NULL
                );
                """),
        Migration(
            id: "0230_operations",
            sql: """
                CREATE TABLE webhook_events (
                    source TEXT NOT NULL,
                    event_id TEXT NOT NULL,
                    event_type TEXT NOT NULL,
                    received_at BIGINT NOT NULL,
                    PRIMARY KEY (source, event_id)
                );

                CREATE TABLE idempotency_keys (
                    scope TEXT NOT NULL,
                    idempotency_key TEXT NOT NULL,
                    request_hash TEXT NOT NULL,
                    status INTEGER NOT NULL,
                    content_type TEXT NOT NULL,
                    body BLOB NOT NULL,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (scope, idempotency_key)
                );

                CREATE TABLE audit_log (
                    id TEXT PRIMARY KEY,
                    actor TEXT NOT NULL,
                    action TEXT NOT NULL,
                    target TEXT,
                    details TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                );
                CREATE INDEX audit_log_created ON audit_log (created_at);
                """),
        Migration(
            id: "0240_auth_tokens",
            sql: """
                CREATE TABLE auth_tokens (
                    token_hash TEXT PRIMARY KEY,
                    purpose TEXT NOT NULL,
                    account_id TEXT NOT NULL REFERENCES accounts (id),
                    email TEXT,
                    code_challenge TEXT,
                    expires_at BIGINT NOT NULL,
                    used_at BIGINT,
                    created_at BIGINT NOT NULL
                );
                CREATE INDEX auth_tokens_account ON auth_tokens (account_id, purpose);
                """),
        // Session tokens name their row (`<id>.<secret>`, see SessionToken): a new session
        // appends to the id-ordered table and one (account, device) index, instead of adding
        // entries at random places in four indexes. Sessions issued before keep working until
        // they expire, found through their token hashes (partial indexes: new rows add nothing).
        Migration(
            id: "0250_session_selectors",
            sql: """
                CREATE TABLE sessions_by_id (
                    id TEXT PRIMARY KEY,
                    account_id TEXT NOT NULL REFERENCES accounts (id),
                    device_id TEXT,
                    family_id TEXT NOT NULL,
                    access_secret_hash BLOB,
                    refresh_secret_hash BLOB,
                    legacy_access_hash TEXT,
                    legacy_refresh_hash TEXT,
                    access_expires_at BIGINT NOT NULL,
                    refresh_expires_at BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    rotated_at BIGINT,
                    revoked_at BIGINT
                ) WITHOUT ROWID;
                INSERT INTO sessions_by_id (id, account_id, device_id, family_id, legacy_access_hash, legacy_refresh_hash,
                    access_expires_at, refresh_expires_at, created_at, rotated_at, revoked_at)
                SELECT id, account_id, device_id, family_id, access_token_hash, refresh_token_hash,
                    access_expires_at, refresh_expires_at, created_at, rotated_at, revoked_at FROM sessions;
                DROP TABLE sessions;
                ALTER TABLE sessions_by_id RENAME TO sessions;
                CREATE INDEX sessions_account_device ON sessions (account_id, device_id);
                CREATE UNIQUE INDEX sessions_legacy_access ON sessions (legacy_access_hash) WHERE legacy_access_hash IS NOT NULL;
                CREATE UNIQUE INDEX sessions_legacy_refresh ON sessions (legacy_refresh_hash) WHERE legacy_refresh_hash IS NOT NULL;
                """),
        // Sessions end per device or per account by a generation bump on that row (see
        // SessionRepository) instead of an UPDATE through an (account, device) index: a new
        // session wrote one random page of that index each time. Rows so far carry generation 0,
        // as do their accounts and devices: every session that counted still counts. Families
        // (a refresh-token reuse ends one) get their own index, which new sessions append to.
        Migration(
            id: "0260_session_generations",
            sql: """
                ALTER TABLE accounts ADD COLUMN session_generation INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE devices ADD COLUMN session_generation INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE sessions ADD COLUMN account_generation INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE sessions ADD COLUMN device_generation INTEGER NOT NULL DEFAULT 0;
                DROP INDEX sessions_account_device;
                CREATE INDEX sessions_family ON sessions (family_id);
                """),
        // Stored Idempotency-Key replies are sealed from now on (they carry codes and tokens);
        // the replies stored before were plaintext, so they go (a retry within 24 h of the
        // upgrade runs again instead of replaying).
        Migration(
            id: "0270_idempotency_replies_sealed",
            sql: """
                DELETE FROM idempotency_keys;
                """),
        // Events to the app's backend (API.md "Events to the app's backend"): one `events` row per
        // event, written in the transaction of the change it describes, with its signed-over body;
        // one `event_deliveries` row per endpoint that wants it (status, attempts, next attempt);
        // `event_sequences` counts events per account (or per purchase not linked to one yet).
        // Work is claimed by `status` + `next_attempt_at` (see EventStore for PostgreSQL's
        // `FOR UPDATE SKIP LOCKED`).
        Migration(
            id: "0300_events",
            sql: """
                CREATE TABLE events (
                    id TEXT PRIMARY KEY,
                    type TEXT NOT NULL,
                    account_id TEXT,
                    sequence_scope TEXT NOT NULL,
                    sequence BIGINT NOT NULL,
                    occurred_at BIGINT NOT NULL,
                    body TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                );
                CREATE INDEX events_created ON events (created_at);
                CREATE INDEX events_account ON events (account_id, sequence);
                CREATE TABLE event_deliveries (
                    id TEXT PRIMARY KEY,
                    event_id TEXT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
                    endpoint_id TEXT NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'delivered', 'failed')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at BIGINT NOT NULL,
                    deadline_at BIGINT NOT NULL,
                    last_status INTEGER,
                    last_error TEXT,
                    last_latency_ms INTEGER,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    delivered_at BIGINT,
                    UNIQUE (event_id, endpoint_id)
                );
                CREATE INDEX event_deliveries_due ON event_deliveries (endpoint_id, status, next_attempt_at);
                CREATE INDEX event_deliveries_status ON event_deliveries (status, created_at);
                CREATE TABLE event_sequences (
                    scope TEXT PRIMARY KEY,
                    last_sequence BIGINT NOT NULL
                );
                """),
        // Account deletion and retention (API.md "Account deletion and data export", "Data over
        // time"): a deleted account stays as a row without personal data (`deleted_at`), so what
        // points at it (codes redeemed into it, ended sessions) still resolves; an erased purchase
        // (`erased_at`) never takes an email or owner back from a later store notification. The
        // indexes let retention delete by age in small batches; each is appended to in time order.
        // `checkouts_purchase` and `app_users_home` let a deletion find its rows without a scan.
        Migration(
            id: "0310_deletion_and_retention",
            sql: """
                ALTER TABLE accounts ADD COLUMN deleted_at BIGINT;
                ALTER TABLE purchases ADD COLUMN erased_at BIGINT;
                CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
                CREATE INDEX webhook_events_received ON webhook_events (received_at);
                CREATE INDEX auth_tokens_expiry ON auth_tokens (expires_at);
                CREATE INDEX resend_throttle_sent ON resend_throttle (last_sent_at);
                CREATE INDEX checkouts_purchase ON checkouts (purchase_id);
                CREATE INDEX app_users_home ON app_users (home_account_id);
                """),
        // The buyer's web account (API.md "The buyer's web account"): cookie sessions, stored as
        // the SHA-256 of their secret, with the account's session generation at sign-in so a
        // password change or a deletion ends them as it ends the app's sessions. Ids are
        // time-ordered; `expires_at` slides forward while the buyer comes back.
        Migration(
            id: "0320_web_sessions",
            sql: """
                CREATE TABLE web_sessions (
                    id TEXT PRIMARY KEY,
                    account_id TEXT NOT NULL REFERENCES accounts (id),
                    secret_hash BLOB NOT NULL,
                    account_generation INTEGER NOT NULL,
                    created_at BIGINT NOT NULL,
                    last_seen_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    revoked_at BIGINT
                );
                CREATE INDEX web_sessions_account ON web_sessions (account_id);
                CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);
                """),
        // What a subscription does at its next renewal (a pending downgrade or crossgrade, or no
        // renewal at all) and the store offer it was bought with (an intro offer, a promotional
        // offer, an offer code; Play's offer id). NULL: the store has not said.
        Migration(
            id: "0330_purchase_renewal",
            sql: """
                ALTER TABLE purchases ADD COLUMN will_renew INTEGER;
                ALTER TABLE purchases ADD COLUMN renews_to_product_id TEXT;
                ALTER TABLE purchases ADD COLUMN offer_type TEXT;
                """),
        // The reconciler (API.md "Purchases stay true"): one row per provider with its cursor in the
        // provider's catch-up API, the lease of the instance running it (claimed, never twice), and
        // what the last runs found. `reconciled_expiry` is the period end a store was last asked
        // about, so a subscription whose period ended without news is asked once per period end;
        // `purchases_lapse` finds those by platform and expiry without a scan.
        Migration(
            id: "0340_reconcile",
            sql: """
                CREATE TABLE reconcile_state (
                    provider TEXT PRIMARY KEY,
                    cursor_at BIGINT,
                    page_token TEXT,
                    window_end BIGINT,
                    claimed_by TEXT,
                    claimed_until BIGINT,
                    last_run_at BIGINT,
                    last_outcome TEXT,
                    last_error TEXT,
                    last_checked INTEGER NOT NULL DEFAULT 0,
                    last_changes INTEGER NOT NULL DEFAULT 0,
                    runs INTEGER NOT NULL DEFAULT 0,
                    checked_total BIGINT NOT NULL DEFAULT 0,
                    changes_total BIGINT NOT NULL DEFAULT 0
                );
                ALTER TABLE purchases ADD COLUMN reconciled_expiry BIGINT;
                CREATE INDEX purchases_lapse ON purchases (platform, expires_at);
                """),
        // The 6-digit sign-in code (API.md "The buyer's web account": 10 minutes, 5 tries) lives in
        // auth_tokens beside the link it is mailed with (purpose `web_sign_in_code`, its keyed hash
        // as token_hash), so erasure and retention treat it as they treat links; `attempts` counts
        // wrong tries, and the index finds an address's newest code.
        Migration(
            id: "0350_sign_in_codes",
            sql: """
                ALTER TABLE auth_tokens ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX auth_tokens_email ON auth_tokens (purpose, email, created_at);
                """),
        // Link-out compliance (API.md): the platform token a checkout was started with (sealed,
        // found by its keyed hash, one row per token however many checkouts carried it), and the reports owed to Apple and Google,
        // a durable queue written in the same transaction as the purchase change. A report's
        // natural key makes it once only; `request_id` (Apple's requestIdentifier, Google's
        // externalTransactionId) is fixed when it is queued, so a retry resends the same report.
        Migration(
            id: "0360_link_out",
            sql: """
                CREATE TABLE link_out_tokens (
                    id TEXT PRIMARY KEY,
                    reporting TEXT NOT NULL,
                    token_hash TEXT NOT NULL,
                    token_sealed BLOB NOT NULL,
                    external_id TEXT,
                    program TEXT NOT NULL,
                    storefront TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                );
                CREATE UNIQUE INDEX link_out_tokens_hash ON link_out_tokens (reporting, token_hash);
                ALTER TABLE checkouts ADD COLUMN link_out_token_id TEXT;
                CREATE INDEX checkouts_link_out_token ON checkouts (link_out_token_id);
                CREATE TABLE link_out_reports (
                    id TEXT PRIMARY KEY,
                    token_id TEXT NOT NULL REFERENCES link_out_tokens (id),
                    reporting TEXT NOT NULL,
                    natural_key TEXT NOT NULL,
                    purchase_id TEXT,
                    kind TEXT NOT NULL,
                    request_id TEXT NOT NULL,
                    body TEXT NOT NULL,
                    status TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at BIGINT NOT NULL,
                    last_error TEXT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    sent_at BIGINT
                );
                CREATE UNIQUE INDEX link_out_reports_key ON link_out_reports (reporting, natural_key);
                CREATE INDEX link_out_reports_due ON link_out_reports (status, next_attempt_at);
                CREATE INDEX link_out_reports_token ON link_out_reports (token_id);
                CREATE INDEX link_out_reports_purchase ON link_out_reports (purchase_id, kind);
                CREATE INDEX link_out_reports_created ON link_out_reports (created_at);
                """),
        // Apple names a token by its externalPurchaseId (EXTERNAL_PURCHASE_TOKEN notifications);
        // the tokens that led to nothing are found by age.
        Migration(
            id: "0361_link_out_token_lookups",
            sql: """
                CREATE INDEX link_out_tokens_external ON link_out_tokens (reporting, external_id);
                CREATE INDEX link_out_tokens_created ON link_out_tokens (reporting, created_at);
                """),
        // The buyer's language (API.md "The buyer's language"): chosen once at /checkout/start,
        // kept with the checkout and copied to its purchase when the checkout completes, so a
        // resend or sign-in mail months later is written in it. NULL: the default language.
        Migration(
            id: "0380_buyer_locale",
            sql: """
                ALTER TABLE checkouts ADD COLUMN locale TEXT;
                ALTER TABLE purchases ADD COLUMN locale TEXT;
                """),
        // Who may act for an account (API.md, issue 40): install secrets bound to app users (an
        // unkeyed SHA-256 of a value of >= 128 random bits), the app users that joined an account
        // through a purchase's checkout or code ("formed by"), purchases linked by a caller that
        // proved nothing, accounts whose password was generated (seed 004's, not set by anyone),
        // the secret a checkout was started with (its hash, bound when the checkout is paid) and
        // app users that hold one purchase's entitlements without joining its account.
        Migration(
            id: "0400_install_secrets",
            sql: """
                CREATE TABLE app_user_secrets (
                    app_user_id TEXT NOT NULL,
                    secret_hash TEXT NOT NULL,
                    device_id TEXT,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (app_user_id, secret_hash)
                );
                ALTER TABLE app_users ADD COLUMN joined_through_purchase_id TEXT;
                ALTER TABLE purchases ADD COLUMN linked_without_proof INTEGER;
                ALTER TABLE accounts ADD COLUMN password_generated INTEGER;
                ALTER TABLE checkouts ADD COLUMN app_user_secret_hash TEXT;
                CREATE TABLE purchase_guests (
                    purchase_id TEXT NOT NULL REFERENCES purchases (id),
                    app_user_id TEXT NOT NULL,
                    holder_account_id TEXT NOT NULL,
                    device_id TEXT NOT NULL,
                    code_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (purchase_id, app_user_id)
                );
                CREATE INDEX purchase_guests_app_user ON purchase_guests (app_user_id);
                """),
        // Addresses as requests (API.md "Who may act for an account", Addresses): `email` holds
        // only a confirmed address from now on; an address set but not confirmed is a request
        // (`requested_email`), which makes the account reachable by nothing. Every unconfirmed
        // address moves there, with the time it was last set. An account whose password no person
        // chose has none (issue 43): the random password of an account made from a bare
        // purchase (a generated username, and no sign-out everywhere since, which setting a
        // password does) goes.
        Migration(
            id: "0410_address_requests",
            sql: """
                ALTER TABLE accounts ADD COLUMN requested_email TEXT;
                ALTER TABLE accounts ADD COLUMN email_requested_at BIGINT;
                UPDATE accounts SET requested_email = email, email_requested_at = updated_at, email = NULL
                    WHERE email IS NOT NULL AND email_verified = 0;
                UPDATE accounts SET password_hash = NULL
                    WHERE username IS NOT NULL AND password_hash IS NOT NULL AND session_generation = 0 AND deleted_at IS NULL;
                CREATE INDEX accounts_requested_email ON accounts (requested_email);
                """),
        // The operators' console (API.md "The operators' console"): operators are people with a
        // role, a scrypt password hash and a sealed TOTP secret (`totp_last_step`: a code works
        // once); one-use invitations (72 h) and cookie sessions keep only hashes of their secrets.
        // The audit log says why (`reason`) and from where (`client_address`), and is read newest
        // first per operator or action. `purchase_history` is each change of a purchase with its
        // source. The other indexes let the console find a buyer by any id without a scan.
        Migration(
            id: "0430_console",
            sql: """
                CREATE TABLE operators (
                    id TEXT PRIMARY KEY,
                    email TEXT NOT NULL UNIQUE,
                    role TEXT NOT NULL,
                    password_hash TEXT,
                    totp_sealed BLOB,
                    totp_last_step BIGINT,
                    enrolled_at BIGINT,
                    removed_at BIGINT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                );
                CREATE TABLE operator_invitations (
                    token_hash TEXT PRIMARY KEY,
                    operator_id TEXT NOT NULL REFERENCES operators (id),
                    totp_sealed BLOB NOT NULL,
                    expires_at BIGINT NOT NULL,
                    used_at BIGINT,
                    created_at BIGINT NOT NULL
                );
                CREATE INDEX operator_invitations_operator ON operator_invitations (operator_id);
                CREATE TABLE console_sessions (
                    id TEXT PRIMARY KEY,
                    operator_id TEXT NOT NULL REFERENCES operators (id),
                    secret_hash BLOB NOT NULL,
                    created_at BIGINT NOT NULL,
                    last_seen_at BIGINT NOT NULL,
                    revoked_at BIGINT
                );
                CREATE INDEX console_sessions_operator ON console_sessions (operator_id);
                ALTER TABLE audit_log ADD COLUMN reason TEXT;
                ALTER TABLE audit_log ADD COLUMN client_address TEXT;
                CREATE INDEX audit_log_actor ON audit_log (actor, created_at);
                CREATE INDEX audit_log_action ON audit_log (action, created_at);
                CREATE INDEX audit_log_target ON audit_log (target, created_at);
                CREATE TABLE purchase_history (
                    id TEXT PRIMARY KEY,
                    purchase_id TEXT NOT NULL,
                    status TEXT NOT NULL,
                    product_id TEXT NOT NULL,
                    expires_at BIGINT,
                    source TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                );
                CREATE INDEX purchase_history_purchase ON purchase_history (purchase_id, created_at);
                CREATE INDEX purchases_customer ON purchases (customer_id);
                CREATE INDEX purchases_app_user ON purchases (app_user_id);
                CREATE INDEX purchases_external ON purchases (external_id);
                CREATE INDEX purchase_aliases_alias ON purchase_aliases (alias);
                CREATE INDEX purchases_platform_created ON purchases (platform, created_at);
                CREATE INDEX redemption_codes_redeemed_account ON redemption_codes (redeemed_account_id);
                CREATE INDEX link_out_reports_status ON link_out_reports (status, created_at);
                """),
        // Every buyer brought in (API.md): one row per paid web purchase with its funnel times
        // (paid by the provider's clock, success page first served, first redeemed or linked) and
        // its reminders (the next one's step and due time; NULL once linked, ended, unsubscribed or
        // done, so the partial index holds only what may still be due), and the reminders'
        // one-click unsubscribe tokens, stored as hashes. `linked_observed` marks a first
        // redemption the time-to-redeem histogram has counted.
        Migration(
            id: "0440_buyer_journeys",
            sql: """
                CREATE TABLE buyer_journeys (
                    purchase_id TEXT PRIMARY KEY REFERENCES purchases (id),
                    paid_at BIGINT NOT NULL,
                    success_seen_at BIGINT,
                    linked_at BIGINT,
                    linked_observed INTEGER NOT NULL DEFAULT 0,
                    reminder_step INTEGER NOT NULL DEFAULT 0,
                    reminder_due_at BIGINT,
                    reminders_stopped_at BIGINT,
                    created_at BIGINT NOT NULL
                );
                CREATE INDEX buyer_journeys_paid ON buyer_journeys (paid_at);
                CREATE INDEX buyer_journeys_reminder_due ON buyer_journeys (reminder_due_at) WHERE reminder_due_at IS NOT NULL;
                CREATE INDEX buyer_journeys_unobserved ON buyer_journeys (purchase_id) WHERE linked_at IS NOT NULL AND linked_observed = 0;
                CREATE TABLE reminder_unsubscribes (
                    token_hash TEXT PRIMARY KEY,
                    purchase_id TEXT NOT NULL REFERENCES purchases (id),
                    created_at BIGINT NOT NULL,
                    used_at BIGINT
                );
                CREATE INDEX reminder_unsubscribes_purchase ON reminder_unsubscribes (purchase_id);
                """),
        // Paid twice (API.md "Every buyer brought in"): each pair of active auto-renewing
        // subscriptions of one account granting the same entitlement, recorded once (its
        // `purchase.duplicate` event goes out then); the console re-checks that both are current.
        Migration(
            id: "0441_duplicate_subscriptions",
            sql: """
                CREATE TABLE duplicate_subscriptions (
                    first_purchase_id TEXT NOT NULL REFERENCES purchases (id),
                    second_purchase_id TEXT NOT NULL REFERENCES purchases (id),
                    account_id TEXT NOT NULL,
                    entitlement TEXT NOT NULL,
                    detected_at BIGINT NOT NULL,
                    PRIMARY KEY (first_purchase_id, second_purchase_id)
                );
                CREATE INDEX duplicate_subscriptions_detected ON duplicate_subscriptions (detected_at);
                """),
        // Refund requests to Apple (API.md "Every buyer brought in"): the Send Consumption
        // Information answers owed to CONSUMPTION_REQUEST notifications, a durable queue (one row
        // per transaction, queued with the notification; `deadline_at` is Apple's 12-hour window).
        Migration(
            id: "0442_consumption_requests",
            sql: """
                CREATE TABLE consumption_requests (
                    id TEXT PRIMARY KEY,
                    transaction_id TEXT NOT NULL UNIQUE,
                    original_transaction_id TEXT,
                    environment TEXT NOT NULL,
                    status TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at BIGINT NOT NULL,
                    deadline_at BIGINT NOT NULL,
                    last_error TEXT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    sent_at BIGINT
                );
                CREATE INDEX consumption_requests_due ON consumption_requests (status, next_attempt_at);
                """),
        // verifyReceipt-only deployments (no App Store Server API key): the latest receipt of each
        // App Store subscription, sealed (`AppStoreReceiptRepository`), so the reconciler can verify
        // it again when a period ends without news.
        Migration(
            id: "0450_app_store_receipts",
            sql: """
                CREATE TABLE app_store_receipts (
                    purchase_id TEXT PRIMARY KEY REFERENCES purchases (id),
                    receipt_sealed BLOB NOT NULL,
                    updated_at BIGINT NOT NULL
                );
                """),
        // Tollgate's own key rotates (API.md "Keys change"): a redemption code is found by its
        // SHA-256 (`code_sha256`) from now on; rows written before have none and are found by
        // `code_hash`, an HMAC under the key of their time, until `tollgate keys rotate` fills it
        // in. New rows still get `code_hash` (under the current key), so the previous release,
        // serving beside this one during an upgrade, finds them too. Only adds.
        Migration(
            id: "0460_code_sha256",
            sql: """
                ALTER TABLE redemption_codes ADD COLUMN code_sha256 TEXT;
                CREATE UNIQUE INDEX redemption_codes_sha256 ON redemption_codes (code_sha256);
                """),
        // A 6-digit sign-in code stays keyed (too few digits to hash without a key): the id of
        // the key it was hashed under is stored beside it, so checking it picks that key (NULL:
        // stored before key ids, any listed key). Not re-keyed by a rotation: codes live 10 minutes.
        Migration(
            id: "0461_sign_in_code_key_id",
            sql: """
                ALTER TABLE auth_tokens ADD COLUMN key_id TEXT;
                """),
        // The id of the key that sealed each value, beside it (`KeyedBox`): the box keeps the form
        // of the release before key ids, which may serve beside this one during an upgrade. NULL:
        // sealed before key ids (any listed key opens it; `tollgate keys rotate` re-seals it).
        Migration(
            id: "0463_sealed_key_ids",
            sql: """
                ALTER TABLE redemption_codes ADD COLUMN code_key_id TEXT;
                ALTER TABLE link_out_tokens ADD COLUMN token_key_id TEXT;
                ALTER TABLE app_store_receipts ADD COLUMN receipt_key_id TEXT;
                ALTER TABLE idempotency_keys ADD COLUMN body_key_id TEXT;
                """),
        // Manual entitlements (API.md "The operators' console"): an admin grants an account an
        // entitlement until the end of a UTC day (`ends_at`, exclusive) or ends it early; every
        // grant stays, with who granted and ended it and why, until the account is deleted.
        Migration(
            id: "0470_manual_entitlements",
            sql: """
                CREATE TABLE manual_entitlements (
                    id TEXT PRIMARY KEY,
                    account_id TEXT NOT NULL,
                    entitlement TEXT NOT NULL,
                    ends_at BIGINT NOT NULL,
                    granted_by TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    ended_at BIGINT,
                    ended_by TEXT
                );
                CREATE INDEX manual_entitlements_account ON manual_entitlements (account_id, entitlement);
                """),
        // Start-up's key check (`KeyProbe`) finds the key ids each sealed column uses by hopping
        // along these indexes, one seek per key in use, instead of grouping every row.
        Migration(
            id: "0471_sealed_key_id_indexes",
            sql: """
                CREATE INDEX redemption_codes_code_key_id ON redemption_codes (code_key_id);
                CREATE INDEX link_out_tokens_token_key_id ON link_out_tokens (token_key_id);
                CREATE INDEX app_store_receipts_receipt_key_id ON app_store_receipts (receipt_key_id);
                CREATE INDEX idempotency_keys_body_key_id ON idempotency_keys (body_key_id);
                """),
        // Retention walks these in time order: ended console sessions, and reminder unsubscribe
        // tokens whose mail is gone and whose purchase has no reminder left.
        Migration(
            id: "0473_retention_indexes",
            sql: """
                CREATE INDEX console_sessions_created ON console_sessions (created_at);
                CREATE INDEX reminder_unsubscribes_created ON reminder_unsubscribes (created_at);
                """),
        // A session that begins a refresh-token family (every sign-in, redemption and account
        // switch: nearly every new session) is its family's first row, `family_id = id`, and is
        // found by its id. The family index keeps only the rows that continue a family (refreshes),
        // so a new session writes one B-tree, not two (docs/BENCHMARKS.md, 2026-11-30T11:00Z). A
        // reused refresh token revokes the family's live rows, which all continue it (the first row
        // was revoked by the first refresh): `SessionRepository.refresh` finds them here.
        .index(id: "0480_sessions_family_continued", "CREATE INDEX sessions_family_continued ON sessions (family_id) WHERE family_id <> id"),
        // The full family index goes. 0.2.0, which may serve beside this release, used it only when
        // a refresh token is presented a second time (rare); until it stops, that statement reads
        // the table instead.
        .dropIndex(id: "0481_sessions_family_full_dropped", "sessions_family")
    ]
}
