extension TollgateConfig.Apple {
    /// `apple.consumption`: answering Apple's refund requests (API.md "Refund requests to Apple").
    public struct Consumption: Sendable, Equatable {
        /// `apple.consumption.enabled`, default false: each `CONSUMPTION_REQUEST` is answered with Send
        /// Consumption Information (the operator affirms buyers consented, as Apple requires); off,
        /// it is acknowledged and nothing is sent.
        public var enabled = false
        /// `apple.consumption.sample_content_provided`, default false: the answers' `sampleContentProvided`.
        public var sampleContentProvided = false

        public init() {}
    }
}
