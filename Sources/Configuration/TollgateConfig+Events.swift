extension TollgateConfig {
    /// `events`: where Tollgate tells the app's backend what happened (API.md, "Events to the
    /// app's backend").
    public struct Events: Sendable, Equatable {
        /// `events.endpoints`: each receives, signed with its own secret, the event types it asks for.
        public var endpoints: [EventEndpoint] = []

        public init() {}
    }

    /// One receiver of events: `{"url", "secret" (one or a list) | "secret_file", "types"}`.
    public struct EventEndpoint: Sendable, Equatable {
        /// Where events are POSTed (absolute http or https URL; the only place they go).
        public var url: String
        /// `secret`: `whsec_<base64 key>` (Standard Webhooks), or a list of them while the receiver
        /// rolls its secret (each delivery then carries one signature per secret); may be read
        /// from `secret_file`.
        public var secrets: [String]
        /// The event types delivered (`["*"]`, the default, for all; `purchase.*` for a family).
        public var types: [String]

        /// The first (newest) secret.
        public var secret: String { secrets.first ?? "" }

        public init(url: String, secret: String, types: [String] = ["*"]) {
            self.init(url: url, secrets: [secret], types: types)
        }

        public init(url: String, secrets: [String], types: [String] = ["*"]) {
            self.url = url
            self.secrets = secrets
            self.types = types
        }
    }
}
