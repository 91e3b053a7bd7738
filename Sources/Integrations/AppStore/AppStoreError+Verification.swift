import Crypto

extension AppStoreError {
    /// Why App Store signed data (a JWS transaction, renewal info or notification) was refused.
    ///
    /// The first five kinds are the outcomes STORES.md asks to distinguish (`missingField`: data that
    /// verifies but cannot be recorded); `message` says what exactly was
    /// wrong and never contains the signed data itself.
    public struct Verification: Sendable, Equatable, CustomStringConvertible {
        /// The distinguishable failures.
        public enum Kind: String, Sendable, Equatable, CaseIterable {
            /// Not a compact JWS with the header fields the App Store uses, or a payload that does not
            /// decode as the expected object.
            case invalidFormat = "invalid_format"
            /// The `x5c` chain does not lead to a trusted root, lacks the Apple marker OIDs, or was not
            /// valid at the validation time.
            case invalidCertificate = "invalid_certificate"
            /// The signature does not verify under the leaf certificate's key.
            case verificationFailure = "verification_failure"
            /// The payload names another bundle id (or, in Production, another app Apple id).
            case wrongAppIdentifier = "wrong_app_identifier"
            /// The payload belongs to another environment than the configured one.
            case wrongEnvironment = "wrong_environment"
            /// Chain, signature, app and environment all verify, but the payload lacks a field
            /// Tollgate needs to record it (its transaction ids, its product): not a forgery, not
            /// a "does not verify".
            case missingField = "missing_field"
        }

        /// What failed.
        public let kind: Kind
        /// A sentence a person can act on.
        public let message: String

        /// Creates an error of `kind`.
        public init(_ kind: Kind, _ message: String) {
            self.kind = kind
            self.message = message
        }

        /// Classifies a Crypto error raised while verifying `what` (e.g. "signed transaction").
        init(_ error: CryptoError, verifying what: String) {
            let kind: Kind
            switch error.jwsCategory {
            case .invalidFormat: kind = .invalidFormat
            case .invalidCertificate: kind = .invalidCertificate
            case .verificationFailure: kind = .verificationFailure
            }
            self.init(kind, "\(what): \(error.message)")
        }

        /// `kind: message`.
        public var description: String { "\(kind.rawValue): \(message)" }
    }
}
