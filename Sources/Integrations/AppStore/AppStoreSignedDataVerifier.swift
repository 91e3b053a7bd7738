import Crypto
import Foundation

/// Verifies and decodes App Store signed data: StoreKit 2 transactions and renewal infos, App
/// Store Server API answers and App Store Server Notifications V2 (STORES.md "Apple StoreKit 2
/// signed data").
///
/// Production and Sandbox data is checked by `Crypto.X5CVerifier`: ES256, an `x5c` of exactly 3
/// certificates of which only the leaf and intermediate are used, a chain to one of
/// `trustedRoots` (never the system store) with Apple's marker OIDs, validated at the payload's
/// `signedDate` (or at the current time when `validatesAtCurrentTime`), then the signature. Then
/// the payload must name the configured bundle id, environment and (Production) app Apple id.
///
/// **Xcode and LocalTesting.** Data signed by Xcode's StoreKit testing carries a one-certificate
/// `x5c` made on the developer's Mac: it cannot chain to Apple. Apple's own
/// app-store-server-library (`ChainVerifier.verify`) skips the chain and signature checks when
/// the configured environment is `.xcode` or `.localTesting` and relies on the environment check
/// of the payload that follows. This verifier does the same: configured for `.xcode` it still
/// parses the JWS strictly and requires `environment == "Xcode"` and the bundle id, but checks
/// no signature, so such a configuration must never serve real users. Configured for Production
/// or Sandbox, Xcode data is refused as invalid format (its `x5c` has one entry).
public struct AppStoreSignedDataVerifier: Sendable {
    /// The bundle id payloads must name.
    public let bundleID: String
    /// The app Apple id notifications must name when the environment is Production (if set).
    public let appAppleID: Int?
    /// The environment payloads must belong to.
    public let environment: AppStoreEnvironment
    /// Whether certificates are checked at the current time instead of at `signedDate` (Apple's
    /// library does so when its online checks are on). Off by default: old data stays verifiable.
    public let validatesAtCurrentTime: Bool
    private let chainVerifier: X5CVerifier

    /// A verifier trusting only `trustedRoots` (e.g. `[AppleRootCertificates.appleRootCAG3]`).
    /// `cacheLifetime` bounds how long a verified chain is reused.
    public init(
        trustedRoots: [Certificate], bundleID: String, appAppleID: Int?, environment: AppStoreEnvironment,
        validatesAtCurrentTime: Bool = false, cacheLifetime: Duration = .seconds(300)
    ) {
        self.init(
            bundleID: bundleID, appAppleID: appAppleID, environment: environment,
            validatesAtCurrentTime: validatesAtCurrentTime,
            chainVerifier: X5CVerifier(trustedRoots: trustedRoots, cacheLifetime: cacheLifetime))
    }

    private init(
        bundleID: String, appAppleID: Int?, environment: AppStoreEnvironment, validatesAtCurrentTime: Bool,
        chainVerifier: X5CVerifier
    ) {
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.environment = environment
        self.validatesAtCurrentTime = validatesAtCurrentTime
        self.chainVerifier = chainVerifier
    }

    /// The same verifier (roots, ids, chain cache) expecting another environment; the App Store
    /// Server API client uses it to check production and sandbox answers as what they are.
    public func withEnvironment(_ environment: AppStoreEnvironment) -> AppStoreSignedDataVerifier {
        AppStoreSignedDataVerifier(
            bundleID: bundleID, appAppleID: appAppleID, environment: environment,
            validatesAtCurrentTime: validatesAtCurrentTime, chainVerifier: chainVerifier)
    }

    /// Verifies a signed transaction (`signedTransactionInfo`, `subscription_transaction_jws`).
    /// - Throws: `AppStoreError.verification`: invalid format / certificate / signature, a bundle id
    ///   other than `bundleID` (wrong app identifier), another environment (wrong environment).
    public func verifyTransaction(_ jws: String, now: Date = Date()) throws -> AppStoreTransaction {
        let what = "signed transaction"
        let transaction = try AppStoreJSON.decode(AppStoreTransaction.self, from: verifiedPayload(jws, what: what, now: now), what: what)
        guard transaction.bundleID == bundleID else {
            throw AppStoreError.verification(
                .init(
                    .wrongAppIdentifier,
                    "\(what) is for bundle id \(transaction.bundleID ?? "(none)"); this server is configured for \(bundleID)"))
        }
        try checkEnvironment(transaction.environment, what: what)
        return transaction
    }

    /// Verifies a signed renewal info (`signedRenewalInfo`).
    /// - Throws: `AppStoreError.verification`, as for `verifyTransaction`; renewal infos carry no
    ///   bundle id, so only the environment is compared.
    public func verifyRenewalInfo(_ jws: String, now: Date = Date()) throws -> AppStoreRenewalInfo {
        let what = "signed renewal info"
        let info = try AppStoreJSON.decode(AppStoreRenewalInfo.self, from: verifiedPayload(jws, what: what, now: now), what: what)
        try checkEnvironment(info.environment, what: what)
        return info
    }

    /// Verifies a notification's `signedPayload`, then its nested `data.signedTransactionInfo` and
    /// `data.signedRenewalInfo` when present (decoded into `data.transaction` / `data.renewalInfo`).
    /// - Throws: `AppStoreError.verification`: as for `verifyTransaction`; the bundle id, app Apple id
    ///   (Production, when configured) and environment come from `data`, else `summary`, else `appData`.
    public func verifyNotification(_ signedPayload: String, now: Date = Date()) throws -> AppStoreNotification {
        let what = "notification"
        var notification = try AppStoreJSON.decode(
            AppStoreNotification.self, from: verifiedPayload(signedPayload, what: what, now: now), what: what)
        let claimed = notification.claimedApp
        guard claimed.bundleID == bundleID else {
            throw AppStoreError.verification(
                .init(
                    .wrongAppIdentifier,
                    "notification is for bundle id \(claimed.bundleID ?? "(none)"); this server is configured for \(bundleID)"))
        }
        if environment == .production, let appAppleID, claimed.appAppleID != appAppleID {
            throw AppStoreError.verification(
                .init(
                    .wrongAppIdentifier,
                    "notification is for app Apple id \(claimed.appAppleID.map(String.init) ?? "(none)"); this server is configured for \(appAppleID)"
                ))
        }
        try checkEnvironment(claimed.environment, what: what)
        if let signed = notification.data?.signedTransactionInfo {
            notification.data?.transaction = try verifyTransaction(signed, now: now)
        }
        if let signed = notification.data?.signedRenewalInfo {
            notification.data?.renewalInfo = try verifyRenewalInfo(signed, now: now)
        }
        return notification
    }

    private func checkEnvironment(_ claimed: String?, what: String) throws {
        guard claimed == environment.rawValue else {
            throw AppStoreError.verification(
                .init(
                    .wrongEnvironment,
                    "\(what) belongs to environment \(claimed ?? "(none)"); this server expects \(environment.rawValue)"))
        }
    }

    /// The payload bytes of `compact` once its format, chain and signature are checked (only its
    /// format for Xcode / LocalTesting, see the type's documentation).
    private func verifiedPayload(_ compact: String, what: String, now: Date) throws -> [UInt8] {
        do {
            let jws = try CompactJWS(parsing: compact)
            guard environment.isSignedByAppStore else { return jws.payload }
            if validatesAtCurrentTime {
                try verifyAtCurrentTime(jws, now: now)
            } else {
                try chainVerifier.verify(jws, now: now)
            }
            return jws.payload
        } catch let error as CryptoError {
            throw AppStoreError.verification(.init(error, verifying: what))
        }
    }

    /// The X5C rule with `now` as the validation time whatever `signedDate` says (uncached).
    private func verifyAtCurrentTime(_ jws: CompactJWS, now: Date) throws {
        guard jws.algorithm == SignatureAlgorithm.es256.rawValue else {
            throw CryptoError(.unsupportedAlgorithm, "JWS alg is \(jws.algorithm); ES256 required")
        }
        guard let x5c = jws.x5c else { throw CryptoError(.invalidJWSFormat, "JWS header has no x5c") }
        guard x5c.count == 3 else {
            throw CryptoError(.invalidJWSFormat, "JWS x5c has \(x5c.count) certificates; exactly 3 required")
        }
        let certificates = try x5c.prefix(2).enumerated().map { index, entry in
            guard let der = try? Base64.decode(entry) else {
                throw CryptoError(.invalidJWSFormat, "JWS x5c[\(index)] is not standard base64")
            }
            return try Certificate(der: der)
        }
        let key = try chainVerifier.verifyChain(leaf: certificates[0], intermediate: certificates[1], at: now)
        guard key.algorithm == .es256 else { throw CryptoError(.invalidKey, "x5c leaf key is not P-256") }
        try jws.verify(with: key)
    }
}
