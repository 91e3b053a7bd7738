import Storage

/// The Mail module's schema changes; the application appends them to its migration list.
///
/// `mail_outbox` holds every email to send. Portable SQL: TEXT ids made by the application,
/// BIGINT millisecond timestamps, a CHECK instead of an enum type.
public enum MailMigrations {
    /// Every migration of the module, in order. Ids: `0100_mail_outbox`.
    public static let all: [Migration] = [
        Migration(
            id: "0100_mail_outbox",
            sql: """
                CREATE TABLE mail_outbox (
                    id TEXT PRIMARY KEY,
                    idempotency_key TEXT NOT NULL UNIQUE,
                    template TEXT NOT NULL,
                    recipient TEXT NOT NULL,
                    recipient_name TEXT,
                    parameters TEXT NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at BIGINT NOT NULL,
                    last_error TEXT,
                    message_id TEXT NOT NULL UNIQUE,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    sent_at BIGINT
                );
                CREATE INDEX mail_outbox_due ON mail_outbox (status, next_attempt_at);
                CREATE INDEX mail_outbox_created ON mail_outbox (created_at);
                """),
        // The console lists the mail sent to one buyer (newest first) without a scan.
        Migration(
            id: "0431_mail_recipient",
            sql: """
                CREATE INDEX mail_outbox_recipient ON mail_outbox (recipient, created_at);
                """),
        // Tollgate's own key rotates (API.md "Keys change"): the id of the key that sealed a row's
        // parameters, beside them (the box keeps its `sealed:v1:` form, so the previous release,
        // serving beside this one during an upgrade, still sends the mail). NULL: plain JSON, or
        // sealed before key ids (any listed key opens it).
        Migration(
            id: "0462_mail_parameters_key_id",
            sql: """
                ALTER TABLE mail_outbox ADD COLUMN parameters_key_id TEXT;
                """),
        // Start-up's key check finds the key ids sealed parameters use through this index, one
        // seek per key in use.
        Migration(
            id: "0472_mail_parameters_key_id_index",
            sql: """
                CREATE INDEX mail_outbox_parameters_key_id ON mail_outbox (parameters_key_id);
                """)
    ]
}
