import Foundation
import Synchronization

/// Verifies JWS signed under an `x5c` certificate chain, by the App Store rule (STORES.md):
/// `alg` ES256; `x5c` exactly 3 standard-base64 DER entries of which only `x5c[0]` (leaf) and
/// `x5c[1]` (intermediate) are used; the root comes only from `trustedRoots`; validation time is
/// the payload's `signedDate` (ms) when present, else now; the built chain must be exactly 3 long;
/// the leaf and intermediate must carry the marker OIDs.
///
/// Verified chains are cached (keyed by SHA-256 of leaf DER, intermediate DER and the validation
/// time's minute) for `cacheLifetime`; a hit still checks the time against the certificates' validity.
public final class X5CVerifier: Sendable {
    /// Marker extension on Apple's App Store receipt-signing leaf certificates.
    public static let appleLeafOID = "1.2.840.113635.100.6.11.1"
    /// Marker extension on Apple's WWDR intermediate certificates.
    public static let appleIntermediateOID = "1.2.840.113635.100.6.2.1"

    private struct CacheEntry: Sendable {
        let key: VerificationKey
        let validFrom: Date
        let validUntil: Date
        let expires: ContinuousClock.Instant
    }

    private static let maximumCacheEntries = 512
    private let trustedRoots: [Certificate]
    private let leafOID: String
    private let intermediateOID: String
    private let cacheLifetime: Duration
    private let cache = Mutex<[[UInt8]: CacheEntry]>([:])

    /// A verifier trusting only `trustedRoots`.
    public init(
        trustedRoots: [Certificate], leafOID: String = X5CVerifier.appleLeafOID,
        intermediateOID: String = X5CVerifier.appleIntermediateOID, cacheLifetime: Duration = .seconds(300)
    ) {
        self.trustedRoots = trustedRoots
        self.leafOID = leafOID
        self.intermediateOID = intermediateOID
        self.cacheLifetime = cacheLifetime
    }

    /// Parses and verifies a compact JWS, returning it parsed.
    /// - Throws: `CryptoError`; its `jwsCategory` says invalid format, invalid certificate or
    ///   verification failure.
    @discardableResult
    public func verify(_ compact: String, now: Date = Date()) throws -> CompactJWS {
        let jws = try CompactJWS(parsing: compact)
        try verify(jws, now: now)
        return jws
    }

    /// Verifies an already parsed JWS.
    /// - Throws: `CryptoError`, as for `verify(_:now:)`.
    public func verify(_ jws: CompactJWS, now: Date = Date()) throws {
        guard jws.algorithm == SignatureAlgorithm.es256.rawValue else {
            throw CryptoError(.unsupportedAlgorithm, "JWS alg is \(jws.algorithm); ES256 required")
        }
        guard let x5c = jws.x5c else { throw CryptoError(.invalidJWSFormat, "JWS header has no x5c") }
        guard x5c.count == 3 else {
            throw CryptoError(.invalidJWSFormat, "JWS x5c has \(x5c.count) certificates; exactly 3 required")
        }
        var ders: [[UInt8]] = []
        for (index, entry) in x5c.prefix(2).enumerated() {
            do { ders.append(try Base64.decode(entry)) } catch {
                throw CryptoError(.invalidJWSFormat, "JWS x5c[\(index)] is not standard base64")
            }
        }
        let validationTime = jws.signedDateMilliseconds.map { Date(timeIntervalSince1970: $0 / 1000) } ?? now
        let key = try leafKey(leafDER: ders[0], intermediateDER: ders[1], at: validationTime)
        guard key.algorithm == .es256 else { throw CryptoError(.invalidKey, "x5c leaf key is not P-256") }
        try jws.verify(with: key)
    }

    /// Applies the chain rule to a leaf and intermediate: chain to a trusted root at `date`, length 3,
    /// marker OIDs present. Returns the leaf's public key.
    /// - Throws: `CryptoError` of the certificate kinds (`.certificateExpired`, `.untrustedRoot`,
    ///   `.chainLengthMismatch`, `.missingExtension`, ...).
    public func verifyChain(leaf: Certificate, intermediate: Certificate, at date: Date) throws -> VerificationKey {
        let length = try Certificate.verifyChain(leaf: leaf, intermediates: [intermediate], roots: trustedRoots, at: date)
        guard length == 3 else {
            throw CryptoError(.chainLengthMismatch, "certificate chain has \(length) certificates; exactly 3 required")
        }
        guard try leaf.hasExtension(oid: leafOID) else {
            throw CryptoError(.missingExtension, "leaf certificate lacks extension \(leafOID)")
        }
        guard try intermediate.hasExtension(oid: intermediateOID) else {
            throw CryptoError(.missingExtension, "intermediate certificate lacks extension \(intermediateOID)")
        }
        return try leaf.publicKey()
    }

    private func leafKey(leafDER: [UInt8], intermediateDER: [UInt8], at date: Date) throws -> VerificationKey {
        var hasher = try SHA256()
        try hasher.update(leafDER)
        try hasher.update([0])
        try hasher.update(intermediateDER)
        let minute = Int64((date.timeIntervalSince1970 / 60).rounded(.down))
        try hasher.update(withUnsafeBytes(of: minute.bigEndian) { Array($0) })
        let cacheKey = try hasher.finalize()
        let clock = ContinuousClock()
        let instant = clock.now
        if let entry = cache.withLock({ $0[cacheKey] }), entry.expires > instant,
            date >= entry.validFrom, date <= entry.validUntil
        {
            return entry.key
        }
        let leaf = try Certificate(der: leafDER)
        let intermediate = try Certificate(der: intermediateDER)
        let key = try verifyChain(leaf: leaf, intermediate: intermediate, at: date)
        let entry = CacheEntry(
            key: key,
            validFrom: max(try leaf.notBefore(), try intermediate.notBefore()),
            validUntil: min(try leaf.notAfter(), try intermediate.notAfter()),
            expires: instant.advanced(by: cacheLifetime))
        cache.withLock { entries in
            if entries.count >= Self.maximumCacheEntries {
                entries = entries.filter { $0.value.expires > instant }
                if entries.count >= Self.maximumCacheEntries { entries.removeAll(keepingCapacity: true) }
            }
            entries[cacheKey] = entry
        }
        return key
    }
}
