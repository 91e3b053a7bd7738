import Crypto
import Foundation

/// Checks the `Stripe-Signature` header of a webhook delivery, over the raw body bytes and
/// before any JSON parsing, exactly as Stripe signs:
///
/// - header `t=<unix seconds>,v1=<hex>[,v1=<hex>...][,v0=<hex>]` (other schemes are ignored);
/// - signed payload `"<t>." + raw body`, HMAC-SHA256 keyed by the whole secret string
///   (including `whsec_`), lowercase hex; any `v1` matching under any of the secrets passes
///   (constant-time compare; Stripe signs with the old and the new secret during a roll);
/// - the signature is checked first, then the timestamp, so a tolerance error always concerns
///   a genuine delivery: rejected when `t < now - tolerance`, and also when
///   `t > now + tolerance`. Stripe's own libraries do not check the future side; Tollgate does,
///   because Stripe stamps `t` when it sends, so a far-future `t` means a wrong server clock
///   (worth an operator's attention) and accepting it would stretch that delivery's replay
///   window past the tolerance.
public struct StripeWebhookVerifier: Sendable {
    /// How far `t` may be from now; nil disables the time check (replaying recorded events only).
    public let tolerance: Duration?
    private let secrets: [[UInt8]]

    /// Longest header accepted: Stripe sends ~150 bytes, a few signatures during secret rolls.
    static let maxHeaderBytes = 8192

    /// A verifier for one endpoint secret (`whsec_...`).
    public init(secret: String, tolerance: Duration? = .seconds(300)) {
        self.init(secrets: [secret], tolerance: tolerance)
    }

    /// A verifier for an endpoint whose secret Stripe is rolling (`stripe.webhook_secrets`): a
    /// delivery passes when any `v1` in its header is its signature under any of `secrets`.
    public init(secrets: [String], tolerance: Duration? = .seconds(300)) {
        self.secrets = secrets.map { Array($0.utf8) }
        self.tolerance = tolerance
    }

    /// Accepts the delivery or throws why not.
    /// - Parameters:
    ///   - payload: the request body exactly as received.
    ///   - signatureHeader: the `Stripe-Signature` header value, nil when absent.
    ///   - now: the current time.
    /// - Throws: `StripeError.webhook` (missing or malformed header, no v1 signature, no
    ///   matching signature, timestamp outside tolerance); `CryptoError` if OpenSSL fails.
    public func verify(payload: [UInt8], signatureHeader: String?, now: Date) throws {
        guard let header = signatureHeader, !header.allSatisfy(\.isWhitespace) else {
            throw StripeError.webhook(.missingHeader)
        }
        let parsed = try Self.parse(header)
        guard !parsed.v1.isEmpty else { throw StripeError.webhook(.noV1Signature) }

        var signed = Array("\(parsed.timestamp).".utf8)
        signed.append(contentsOf: payload)
        let expected = try secrets.map { try HMACSHA256(key: $0).authenticationCode(for: signed) }
        var matched = false
        for candidate in parsed.v1 {
            // A candidate that is not 64 hex digits cannot match; the rest compare in constant time,
            // against every secret, so the time taken does not say which one matched.
            guard let bytes = try? Hex.decode(candidate) else { continue }
            for signature in expected where ConstantTime.equals(bytes, signature) { matched = true }
        }
        guard matched else { throw StripeError.webhook(.noMatchingSignature) }

        guard let tolerance else { return }
        let toleranceSeconds = tolerance.components.seconds
        let nowSeconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let (age, overflow) = nowSeconds.subtractingReportingOverflow(parsed.timestamp)
        if overflow || age > toleranceSeconds || age < -toleranceSeconds {
            throw StripeError.webhook(
                .timestampOutsideTolerance(
                    ageSeconds: overflow ? Int64.max : age, toleranceSeconds: toleranceSeconds))
        }
    }

    /// Verifies the delivery, then decodes it.
    /// - Throws: `StripeError.webhook` as `verify` does, then `StripeError.decoding` for a body
    ///   that is not a well-formed event.
    public func verifiedEvent(payload: [UInt8], signatureHeader: String?, now: Date) throws -> StripeEvent {
        try verify(payload: payload, signatureHeader: signatureHeader, now: now)
        return try StripeEvent(json: payload)
    }

    /// Splits the header into its timestamp (the first `t`, as Stripe's libraries take it) and
    /// its `v1` values.
    static func parse(_ header: String) throws -> (timestamp: Int64, v1: [String]) {
        guard header.utf8.count <= maxHeaderBytes else {
            throw StripeError.webhook(.malformedHeader(reason: "longer than \(maxHeaderBytes) bytes"))
        }
        var timestamp: Int64?
        var sawTimestamp = false
        var v1: [String] = []
        for element in header.split(separator: ",") {
            guard let equals = element.firstIndex(of: "=") else { continue }
            let key = element[..<equals].trimmingCharacters(in: .whitespaces)
            let value = element[element.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            switch key {
            case "t" where !sawTimestamp:
                sawTimestamp = true
                if !value.isEmpty, value.utf8.count <= 18, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                    timestamp = Int64(value)
                }
            case "v1":
                v1.append(value)
            default:
                continue
            }
        }
        guard sawTimestamp else {
            throw StripeError.webhook(.malformedHeader(reason: "no t= timestamp"))
        }
        guard let timestamp else {
            throw StripeError.webhook(.malformedHeader(reason: "t= is not a Unix time in seconds"))
        }
        return (timestamp, v1)
    }
}
