extension AppStoreError {
    /// An external purchase token the app sent that Tollgate cannot use: not Apple's format, or
    /// made for another app. The web layer answers 400 naming `kind`.
    public struct ExternalToken: Sendable, Equatable, CustomStringConvertible {
        /// What is wrong.
        public enum Kind: String, Sendable, Equatable, CaseIterable {
            /// Not base64url, too long, or not a JSON object once decoded.
            case malformed
            /// A field Apple always sends is missing or has the wrong JSON type.
            case invalidField = "invalid_field"
            /// Its `bundleId` is not our app's.
            case wrongBundleID = "wrong_bundle_id"
            /// Its `appAppleId` is not our app's.
            case wrongAppAppleID = "wrong_app_apple_id"
        }

        /// What is wrong.
        public let kind: Kind
        /// The field concerned (`bundleId`, `tokenCreationDate`...), when one is.
        public let field: String?
        /// A sentence naming the problem; it never repeats the token.
        public let message: String

        /// Creates an error.
        public init(_ kind: Kind, field: String? = nil, _ message: String) {
            self.kind = kind
            self.field = field
            self.message = message
        }

        public var description: String { "\(kind.rawValue): \(message)" }
    }
}
