import Crypto
import Foundation
import JSON

/// Signs App Store data exactly as the App Store does: compact JWS, header
/// `{"alg":"ES256","x5c":[leaf, intermediate, root]}` (standard base64 DER), ES256 signature as
/// 64 raw bytes r‖s, dates in Unix milliseconds.
public struct FakeAppStoreSigner: Sendable {
    /// The signing key (the leaf's).
    public let key: SigningKey
    /// The `x5c` certificates, leaf first.
    public let chain: [Certificate]

    /// A signer with `key` and `chain` (usually from `FakeApplePKI.signer`).
    public init(key: SigningKey, chain: [Certificate]) {
        self.key = key
        self.chain = chain
    }

    /// Signs any payload.
    /// - Throws: `CryptoError` if signing fails.
    public func sign(_ payload: JSONValue) throws -> String {
        let header: JSONValue = ["alg": "ES256", "x5c": .array(chain.map { .string(Base64.encode($0.der)) })]
        return try CompactJWS.sign(header: header, claims: payload, key: key)
    }

    /// A `signedTransactionInfo`.
    /// - Throws: `CryptoError` if signing fails.
    public func signTransaction(_ transaction: FakeAppStoreTransaction) throws -> String {
        try sign(transaction.payload)
    }

    /// A `signedRenewalInfo`.
    /// - Throws: `CryptoError` if signing fails.
    public func signRenewalInfo(_ renewalInfo: FakeAppStoreRenewalInfo) throws -> String {
        try sign(renewalInfo.payload)
    }

    /// A notification's `signedPayload`; its transaction and renewal info are signed with this
    /// signer and nested as `data.signedTransactionInfo` / `data.signedRenewalInfo`.
    /// - Throws: `CryptoError` if signing fails.
    public func signNotification(_ notification: FakeAppStoreNotification) throws -> String {
        try sign(
            notification.payload(
                signedTransactionInfo: try notification.transaction.map(signTransaction),
                signedRenewalInfo: try notification.renewalInfo.map(signRenewalInfo)))
    }

    /// The webhook body the App Store POSTs: `{"signedPayload": "..."}`.
    /// - Throws: `CryptoError` if signing fails.
    public func notificationBody(_ notification: FakeAppStoreNotification) throws -> [UInt8] {
        JSONValue.object([("signedPayload", .string(try signNotification(notification)))]).serialized()
    }
}

/// Unix milliseconds of `date`, as the App Store writes them.
func appStoreMilliseconds(_ date: Date) -> JSONValue {
    .integer(Int64((date.timeIntervalSince1970 * 1000).rounded()))
}

/// Appends `key: value` when `value` is not nil.
func appendIfPresent(_ members: inout [(key: String, value: JSONValue)], _ key: String, _ value: JSONValue?) {
    if let value { members.append((key, value)) }
}
