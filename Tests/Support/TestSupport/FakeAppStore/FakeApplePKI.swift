import Crypto
import Foundation
import Synchronization

/// A certificate hierarchy shaped like Apple's, made once per test process: a root, an
/// intermediate carrying the WWDR marker OID `1.2.840.113635.100.6.2.1` and a leaf carrying the
/// receipt-signing OID `1.2.840.113635.100.6.11.1`, all P-256, plus broken variants.
///
/// Validity dates are fixed (see `validity`), so tests may sign data with fixed past dates.
/// The certificates are made with the `openssl` command line (`/usr/bin/openssl`). Each command
/// runs as a child process whose exit is awaited through `Process.terminationHandler` and a
/// continuation, so no thread of the Swift concurrency pool ever blocks on it.
public struct FakeApplePKI: Sendable {
    /// When every certificate except `shortLivedLeaf` is valid: 2020-01-01 to 2045-01-01 UTC, so
    /// data with any `signedDate` in that range verifies.
    public static let validity = Date(timeIntervalSince1970: 1_577_836_800)..<Date(timeIntervalSince1970: 2_366_841_600)
    /// When `shortLivedLeaf` is valid: 2023-11-14T00:00:00Z to 2023-11-15T00:00:00Z.
    public static let shortLivedValidity = Date(timeIntervalSince1970: 1_699_920_000)..<Date(timeIntervalSince1970: 1_700_006_400)

    /// The trusted root: configure verifiers with `[root]`.
    public let root: Certificate
    /// A root that signed nothing here: a verifier trusting only it sees "untrusted root".
    public let otherRoot: Certificate
    /// The intermediate (with the WWDR OID), issued by `root`.
    public let intermediate: Certificate
    /// The signing leaf (with the receipt-signing OID), issued by `intermediate`.
    public let leaf: Certificate
    /// The leaf's private key.
    public let leafKey: SigningKey
    /// A leaf without the receipt-signing OID, issued by `intermediate`.
    public let leafWithoutOID: Certificate
    /// Its key.
    public let leafWithoutOIDKey: SigningKey
    /// An intermediate without the WWDR OID, issued by `root`.
    public let intermediateWithoutOID: Certificate
    /// A proper leaf issued by `intermediateWithoutOID`.
    public let leafUnderIntermediateWithoutOID: Certificate
    /// Its key.
    public let leafUnderIntermediateWithoutOIDKey: SigningKey
    /// A leaf valid only on 2023-11-14 (UTC, `shortLivedValidity`): data signed with a later
    /// `signedDate` has an expired certificate, an earlier one a not-yet-valid certificate.
    public let shortLivedLeaf: Certificate
    /// Its key.
    public let shortLivedLeafKey: SigningKey

    /// Which chain a signer puts in `x5c`.
    public enum Chain: Sendable {
        /// leaf → intermediate → root, all with their OIDs.
        case valid
        /// The leaf lacks its marker OID.
        case leafWithoutOID
        /// The intermediate lacks its marker OID.
        case intermediateWithoutOID
        /// The one-day leaf.
        case shortLivedLeaf
    }

    /// A signer that signs like the App Store with the given chain.
    public func signer(_ chain: Chain = .valid) -> FakeAppStoreSigner {
        switch chain {
        case .valid: FakeAppStoreSigner(key: leafKey, chain: [leaf, intermediate, root])
        case .leafWithoutOID: FakeAppStoreSigner(key: leafWithoutOIDKey, chain: [leafWithoutOID, intermediate, root])
        case .intermediateWithoutOID:
            FakeAppStoreSigner(
                key: leafUnderIntermediateWithoutOIDKey,
                chain: [leafUnderIntermediateWithoutOID, intermediateWithoutOID, root])
        case .shortLivedLeaf: FakeAppStoreSigner(key: shortLivedLeafKey, chain: [shortLivedLeaf, intermediate, root])
        }
    }

    private static let cached = Mutex<Task<FakeApplePKI, any Error>?>(nil)

    /// The process-wide hierarchy, made on first use.
    /// - Throws: `FakeApplePKI.OpenSSLFailed` if the openssl command line fails.
    public static func shared() async throws -> FakeApplePKI {
        let task = cached.withLock { existing -> Task<FakeApplePKI, any Error> in
            if let existing { return existing }
            let task = Task { try await make() }
            existing = task
            return task
        }
        return try await task.value
    }

    /// An `openssl` command that failed, with its stderr.
    public struct OpenSSLFailed: Error, CustomStringConvertible {
        /// The command and what openssl printed.
        public let description: String
    }

    private static func make() async throws -> FakeApplePKI {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fake-apple-pki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func run(_ arguments: String...) async throws { try await openssl(arguments, in: directory) }
        func write(_ name: String, _ text: String) throws {
            try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        func read(_ name: String) throws -> String {
            try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        }
        for name in ["root", "other", "int", "intnooid", "leaf", "nooid", "underbad", "short"] {
            try await run("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "\(name).key")
        }
        // `openssl ca` (unlike `x509 -req` in OpenSSL 3.0) sets exact validity dates.
        try write(
            "ca.cnf",
            """
            [ ca ]
            default_ca = fake
            [ fake ]
            database = index.txt
            new_certs_dir = .
            serial = serial
            default_md = sha256
            policy = anything
            unique_subject = no
            [ anything ]
            commonName = supplied
            organizationName = optional

            """)
        try write("index.txt", "")
        try write("serial", "1000\n")
        let caUsage = "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n"
        let leafUsage = "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
        try write("root.ext", caUsage)
        try write("int.ext", caUsage + "1.2.840.113635.100.6.2.1=ASN1:NULL\n")
        try write("leaf.ext", leafUsage + "1.2.840.113635.100.6.11.1=ASN1:NULL\n")
        try write("nooid.ext", leafUsage)
        func issue(
            _ name: String, _ subject: String, by issuer: String?, _ extensions: String,
            from start: String = "200101000000Z", until end: String = "450101000000Z"
        ) async throws {
            try await run("req", "-new", "-key", "\(name).key", "-subj", subject + "/O=Tollgate Tests", "-out", "\(name).csr")
            let signer = issuer.map { ["-cert", "\($0).pem", "-keyfile", "\($0).key"] } ?? ["-selfsign", "-keyfile", "\(name).key"]
            try await openssl(
                [
                    "ca", "-batch", "-config", "ca.cnf", "-notext", "-in", "\(name).csr", "-out", "\(name).pem",
                    "-startdate", start, "-enddate", end, "-extfile", extensions
                ] + signer, in: directory)
        }
        try await issue("root", "/CN=Fake Apple Root CA", by: nil, "root.ext")
        try await issue("other", "/CN=Fake Other Root", by: nil, "root.ext")
        try await issue("int", "/CN=Fake Worldwide Developer Relations", by: "root", "int.ext")
        try await issue("intnooid", "/CN=Fake Intermediate Without OID", by: "root", "root.ext")
        try await issue("leaf", "/CN=Fake App Store Signing", by: "int", "leaf.ext")
        try await issue("nooid", "/CN=Fake Leaf Without OID", by: "int", "nooid.ext")
        try await issue("underbad", "/CN=Fake Leaf Under Bad Intermediate", by: "intnooid", "leaf.ext")
        try await issue("short", "/CN=Fake Short-Lived Leaf", by: "int", "leaf.ext", from: "231114000000Z", until: "231115000000Z")
        return FakeApplePKI(
            root: try Certificate(pem: read("root.pem")), otherRoot: try Certificate(pem: read("other.pem")),
            intermediate: try Certificate(pem: read("int.pem")),
            leaf: try Certificate(pem: read("leaf.pem")), leafKey: try SigningKey(pem: read("leaf.key")),
            leafWithoutOID: try Certificate(pem: read("nooid.pem")), leafWithoutOIDKey: try SigningKey(pem: read("nooid.key")),
            intermediateWithoutOID: try Certificate(pem: read("intnooid.pem")),
            leafUnderIntermediateWithoutOID: try Certificate(pem: read("underbad.pem")),
            leafUnderIntermediateWithoutOIDKey: try SigningKey(pem: read("underbad.key")),
            shortLivedLeaf: try Certificate(pem: read("short.pem")), shortLivedLeafKey: try SigningKey(pem: read("short.key")))
    }

    /// Runs `/usr/bin/openssl` off the Swift concurrency pool.
    private static func openssl(_ arguments: [String], in directory: URL) async throws {
        let result = try await ChildProcessRunner.run("/usr/bin/openssl", arguments, directory: directory.path)
        guard result.status == 0, !result.endedBySignal else {
            throw OpenSSLFailed(description: "openssl \(arguments.joined(separator: " ")): \(result.stderrText)")
        }
    }
}
