extension TollgateConfig {
    /// `retention`: days each kind of row is kept once expired or done (API.md "Data over time").
    /// Purchases, codes' hashes, accounts and the audit log are never deleted by retention.
    public struct Retention: Sendable, Equatable {
        /// `retention.sessions_days`: sessions and sign-in links this long after they expired, default 30.
        public var sessionsDays = 30
        /// `retention.idempotency_days`: stored `Idempotency-Key` replies, default 1.
        public var idempotencyDays = 1
        /// `retention.mail_days`: sent (or given-up) mail, default 30.
        public var mailDays = 30
        /// `retention.events_days`: events delivered to every endpoint, default 30.
        public var eventsDays = 30
        /// `retention.webhook_ids_days`: ids of Stripe, Apple and Google events already handled, default 90.
        public var webhookIDsDays = 90

        public init() {}
    }
}
