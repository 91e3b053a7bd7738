extension TollgateConfig {
    /// `reconcile`: how often missed store and Stripe notifications are looked for (API.md
    /// "Purchases stay true").
    public struct Reconcile: Sendable, Equatable {
        /// `reconcile.interval_seconds`: seconds between runs, default 900; 0 turns the background
        /// runs off (`tollgate reconcile` still works).
        public var intervalSeconds = 900

        public init() {}
    }
}
