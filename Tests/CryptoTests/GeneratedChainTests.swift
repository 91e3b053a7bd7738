import Crypto
import Foundation
import JSON
import Testing

/// Certificate chains made with the openssl command line, once per test process.
struct GeneratedChains: Sendable {
    let root: Certificate
    let otherRoot: Certificate
    let intermediate: Certificate
    let leaf: Certificate
    let leafKey: SigningKey
    let shortLivedLeaf: Certificate
    let shortLivedLeafKey: SigningKey
    let leafWithoutOID: Certificate
    let leafWithoutOIDKey: SigningKey
    let leafSignedByRoot: Certificate
    let leafSignedByRootKey: SigningKey

    /// Made once, by the first test that asks; the others await the same task. (A `static let` of
    /// the chains themselves would run ~20 openssl processes inside a lazy initializer, blocking
    /// every pool thread that touches it meanwhile.)
    static let shared = Task { try await make() }

    private static func make() async throws -> GeneratedChains {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func run(_ arguments: String...) async throws { try await TestSupport.openssl(arguments, in: directory) }
        func write(_ name: String, _ text: String) throws {
            try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        func read(_ name: String) throws -> String {
            try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        }
        for name in ["root", "other", "int", "leaf", "short", "nooid", "direct"] {
            try await run("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "\(name).key")
        }
        for (name, subject) in [("root", "/CN=Generated Test Root"), ("other", "/CN=Generated Other Root")] {
            try await run(
                "req", "-x509", "-new", "-key", "\(name).key", "-subj", subject, "-days", "3650", "-sha256",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                "-out", "\(name).pem")
        }
        try write("int.ext", "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n1.2.840.113635.100.6.2.1=ASN1:NULL\n")
        try write("leaf.ext", "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n1.2.840.113635.100.6.11.1=ASN1:NULL\n")
        try write("nooid.ext", "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n")
        func issue(_ name: String, subject: String, issuer: String, days: Int, extensions: String) async throws {
            try await run("req", "-new", "-key", "\(name).key", "-subj", subject, "-out", "\(name).csr")
            try await run(
                "x509", "-req", "-in", "\(name).csr", "-CA", "\(issuer).pem", "-CAkey", "\(issuer).key",
                "-set_serial", String(Int.random(in: 1000...999_999)), "-days", String(days), "-sha256",
                "-extfile", extensions, "-out", "\(name).pem")
        }
        try await issue("int", subject: "/CN=Generated Intermediate", issuer: "root", days: 3650, extensions: "int.ext")
        try await issue("leaf", subject: "/CN=Generated Leaf", issuer: "int", days: 3650, extensions: "leaf.ext")
        try await issue("short", subject: "/CN=Generated Short Leaf", issuer: "int", days: 1, extensions: "leaf.ext")
        try await issue("nooid", subject: "/CN=Generated Leaf Without OID", issuer: "int", days: 3650, extensions: "nooid.ext")
        try await issue("direct", subject: "/CN=Generated Leaf Under Root", issuer: "root", days: 3650, extensions: "leaf.ext")
        return GeneratedChains(
            root: try Certificate(pem: read("root.pem")), otherRoot: try Certificate(pem: read("other.pem")),
            intermediate: try Certificate(pem: read("int.pem")),
            leaf: try Certificate(pem: read("leaf.pem")), leafKey: try SigningKey(pem: read("leaf.key")),
            shortLivedLeaf: try Certificate(pem: read("short.pem")), shortLivedLeafKey: try SigningKey(pem: read("short.key")),
            leafWithoutOID: try Certificate(pem: read("nooid.pem")), leafWithoutOIDKey: try SigningKey(pem: read("nooid.key")),
            leafSignedByRoot: try Certificate(pem: read("direct.pem")), leafSignedByRootKey: try SigningKey(pem: read("direct.key")))
    }

    /// A JWS with `x5c` = the given certificates and a payload carrying `signedDate`.
    static func jws(chain: [Certificate], key: SigningKey, signedDate: Date = Date(), alg: String = "ES256") throws -> String {
        let header: JSONValue = ["alg": .string(alg), "x5c": .array(chain.map { .string(Base64.encode($0.der)) })]
        let claims: JSONValue = ["bundleId": "com.example", "signedDate": .integer(Int64(signedDate.timeIntervalSince1970 * 1000))]
        return try CompactJWS.sign(header: header, claims: claims, key: key)
    }
}

@Suite struct GeneratedChainTests {
    let chains: GeneratedChains
    init() async throws { chains = try await GeneratedChains.shared.value }

    func verifier() -> X5CVerifier { X5CVerifier(trustedRoots: [chains.root]) }

    func expectRejection(
        _ compact: String, _ kind: CryptoError.Kind, _ category: CryptoError.JWSCategory,
        verifier: X5CVerifier? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            try (verifier ?? self.verifier()).verify(compact)
            Issue.record("accepted; expected \(kind)", sourceLocation: sourceLocation)
        } catch let error as CryptoError {
            #expect(error.kind == kind, "got \(error)", sourceLocation: sourceLocation)
            #expect(error.jwsCategory == category, sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func validGeneratedChainVerifiesRepeatedly() throws {
        let compact = try GeneratedChains.jws(chain: [chains.leaf, chains.intermediate, chains.root], key: chains.leafKey)
        let verifier = verifier()
        try verifier.verify(compact)
        try verifier.verify(compact)  // served from the chain cache
        // x5c[2] is ignored: any third certificate, even an unrelated root, changes nothing.
        try verifier.verify(try GeneratedChains.jws(chain: [chains.leaf, chains.intermediate, chains.otherRoot], key: chains.leafKey))
        #expect(try Certificate.verifyChain(leaf: chains.leaf, intermediates: [chains.intermediate], roots: [chains.root], at: Date()) == 3)
    }

    @Test func wrongRootIsUntrusted() throws {
        let compact = try GeneratedChains.jws(chain: [chains.leaf, chains.intermediate, chains.root], key: chains.leafKey)
        expectRejection(compact, .untrustedRoot, .invalidCertificate, verifier: X5CVerifier(trustedRoots: [chains.otherRoot]))
        expectRejection(compact, .untrustedRoot, .invalidCertificate, verifier: X5CVerifier(trustedRoots: []))
    }

    @Test func expiredAndNotYetValidLeavesAreRejected() throws {
        let chain = [chains.shortLivedLeaf, chains.intermediate, chains.root]
        try verifier().verify(try GeneratedChains.jws(chain: chain, key: chains.shortLivedLeafKey))
        let later = Date().addingTimeInterval(5 * 86_400)
        expectRejection(
            try GeneratedChains.jws(chain: chain, key: chains.shortLivedLeafKey, signedDate: later),
            .certificateExpired, .invalidCertificate)
        let earlier = Date().addingTimeInterval(-5 * 86_400)
        expectRejection(
            try GeneratedChains.jws(chain: chain, key: chains.shortLivedLeafKey, signedDate: earlier),
            .certificateNotYetValid, .invalidCertificate)
    }

    @Test func leafWithoutMarkerOIDIsRejected() throws {
        expectRejection(
            try GeneratedChains.jws(chain: [chains.leafWithoutOID, chains.intermediate, chains.root], key: chains.leafWithoutOIDKey),
            .missingExtension, .invalidCertificate)
    }

    @Test func twoCertificateChainIsRejected() throws {
        // Leaf issued directly by the root: OpenSSL builds leaf → root, length 2.
        expectRejection(
            try GeneratedChains.jws(chain: [chains.leafSignedByRoot, chains.intermediate, chains.root], key: chains.leafSignedByRootKey),
            .chainLengthMismatch, .invalidCertificate)
        #expect(try Certificate.verifyChain(leaf: chains.leafSignedByRoot, intermediates: [], roots: [chains.root], at: Date()) == 2)
        // An x5c of only two entries is refused before any chain work.
        expectRejection(
            try GeneratedChains.jws(chain: [chains.leaf, chains.intermediate], key: chains.leafKey),
            .invalidJWSFormat, .invalidFormat)
    }

    @Test func tamperedPayloadAndSignatureFailVerification() throws {
        let compact = try GeneratedChains.jws(chain: [chains.leaf, chains.intermediate, chains.root], key: chains.leafKey)
        let parts = compact.split(separator: ".").map(String.init)
        let jws = try CompactJWS(parsing: compact)
        var payload = String(decoding: jws.payload, as: UTF8.self)
        payload = payload.replacingOccurrences(of: "com.example", with: "com.evil.xx")
        let tamperedPayload = parts[0] + "." + Base64URL.encode(Array(payload.utf8)) + "." + parts[2]
        expectRejection(tamperedPayload, .signatureMismatch, .verificationFailure)

        var signature = jws.signature
        signature[10] ^= 0x01
        let tamperedSignature = parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)
        expectRejection(tamperedSignature, .signatureMismatch, .verificationFailure)

        let truncatedSignature = parts[0] + "." + parts[1] + "." + Base64URL.encode(Array(signature.prefix(63)))
        expectRejection(truncatedSignature, .malformedSignature, .verificationFailure)

        // Signed by a key other than the leaf's.
        expectRejection(
            try GeneratedChains.jws(chain: [chains.leaf, chains.intermediate, chains.root], key: chains.shortLivedLeafKey),
            .signatureMismatch, .verificationFailure)
    }

    @Test func nonES256AlgorithmIsRejected() throws {
        expectRejection(
            try GeneratedChains.jws(chain: [chains.leaf, chains.intermediate, chains.root], key: chains.leafKey, alg: "RS256"),
            .unsupportedAlgorithm, .invalidFormat)
    }

    @Test func distinctFailuresHaveDistinctKinds() {
        let kinds: [CryptoError.Kind] = [
            .untrustedRoot, .certificateExpired, .missingExtension, .chainLengthMismatch, .signatureMismatch, .invalidJWSFormat
        ]
        #expect(Set(kinds).count == kinds.count)
    }
}
