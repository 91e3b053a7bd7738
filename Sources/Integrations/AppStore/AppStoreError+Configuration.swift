extension AppStoreError {
    /// App Store settings that cannot work: root certificate files that cannot be read, or API
    /// credentials the App Store rejects. Fix the configuration; retrying will not help.
    public struct Configuration: Sendable, Equatable, CustomStringConvertible {
        /// What is wrong and where to look, without secrets.
        public let message: String

        /// Creates an error with `message`.
        public init(_ message: String) { self.message = message }

        /// The message.
        public var description: String { message }
    }
}
