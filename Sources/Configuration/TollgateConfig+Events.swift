extension TollgateConfig {
    /// `events`: where Tollgate tells the app's backend what happened (API.md, "Events to the
    /// app's backend").
    public struct Events: Sendable, Equatable {
        /// `events.endpoints`: each receives, signed with its own secret, the event types it asks for.
        public var endpoints: [EventEndpoint] = []

        public init() {}
    }

    /// One receiver of events: `{"url", "secret" | "secret_file", "types"}`.
    public struct EventEndpoint: Sendable, Equatable {
        /// Where events are POSTed (absolute http or https URL; the only place they go).
        public var url: String
        /// `whsec_<base64 key>` (Standard Webhooks); may be read from `secret_file`.
        public var secret: String
        /// The event types delivered (`["*"]`, the default, for all; `purchase.*` for a family).
        public var types: [String]

        public init(url: String, secret: String, types: [String] = ["*"]) {
            self.url = url
            self.secret = secret
            self.types = types
        }
    }
}
