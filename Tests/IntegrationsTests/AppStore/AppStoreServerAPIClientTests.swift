import Crypto
import Domain
import Foundation
import Integrations
import Synchronization
import Testing
import TestSupport

@Suite("App Store Server API client")
struct AppStoreServerAPIClientTests {
    /// A fake App Store, a client for it, and the clock both use.
    struct Setup {
        let pki: FakeApplePKI
        let fake: FakeAppStoreServer
        let client: AppStoreServerAPIClient
        let clock: TestClock
    }

    final class TestClock: Sendable {
        private let value: Mutex<Date>
        init(_ date: Date) { value = Mutex(date) }
        var now: Date { value.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { value.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    static let issuerID = "57246542-96fe-1a63-e053-0824d011072a"
    static let keyID = "2X9R4HXF34"

    static func setup(
        clientKeyID: String = keyID, clientKey: SigningKey? = nil, clientBundleID: String = AppStoreTests.bundleID,
        clientEnvironment: AppStoreEnvironment = .production, refusedAt refusing: RefusingPort? = nil
    ) async throws -> Setup {
        let pki = try await FakeApplePKI.shared()
        let key = try SigningKey.generateES256()
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        let fake = try FakeAppStoreServer(
            credentials: .init(issuerID: issuerID, keyID: keyID, bundleID: AppStoreTests.bundleID, publicKey: try key.verificationKey()),
            clock: { clock.now })
        let client = AppStoreServerAPIClient(
            issuerID: issuerID, keyID: clientKeyID, privateKey: clientKey ?? key, bundleID: clientBundleID,
            productionBaseURL: try refusing.map { try Self.refusedURL($0, "/production") } ?? fake.productionBaseURL,
            sandboxBaseURL: try refusing.map { try Self.refusedURL($0, "/sandbox") } ?? fake.sandboxBaseURL,
            http: URLSessionHTTPClient(service: "app_store"), verifier: AppStoreTests.verifier(pki, environment: clientEnvironment),
            clock: { clock.now })
        return Setup(pki: pki, fake: fake, client: client, clock: clock)
    }

    /// A URL on `port`, where connections are refused.
    static func refusedURL(_ port: RefusingPort, _ path: String) throws -> URL {
        try #require(URL(string: "http://127.0.0.1:\(port.port)\(path)"))
    }

    static func transaction(_ id: String, environment: String, bundleID: String = AppStoreTests.bundleID) -> FakeAppStoreTransaction {
        FakeAppStoreTransaction(
            transactionID: id, originalTransactionID: id, bundleID: bundleID,
            expiresDate: Date().addingTimeInterval(86400), environment: environment)
    }

    @Test("A production transaction is fetched with a bearer JWT Apple accepts, and verified")
    func production() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.fake.stop() } }
        try setup.fake.addTransaction(
            Self.transaction("2000000000000101", environment: "Production"), signer: setup.pki.signer(), environment: .production)
        let transaction = try await setup.client.transaction(id: "2000000000000101")
        #expect(transaction.transactionID == "2000000000000101")
        #expect(transaction.environment == "Production")
        #expect(try transaction.snapshot().environment == "Production")
        #expect(setup.fake.authenticationFailures.isEmpty)
        let request = try #require(setup.fake.requests.first)
        #expect(setup.fake.requests.count == 1)
        #expect(request.method == .get)
        #expect(request.path == "/production/inApps/v1/transactions/2000000000000101")

        // The token, as Apple reads it.
        let authorization = try #require(request.headers["Authorization"])
        #expect(authorization.hasPrefix("Bearer "))
        let jws = try CompactJWS(parsing: String(authorization.dropFirst(7)))
        let header = try #require(try JSONSerialization.jsonObject(with: Data(jws.header)) as? [String: Any])
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(jws.payload)) as? [String: Any])
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == Self.keyID)
        #expect(header["typ"] as? String == "JWT")
        #expect(claims["iss"] as? String == Self.issuerID)
        #expect(claims["aud"] as? String == "appstoreconnect-v1")
        #expect(claims["bid"] as? String == AppStoreTests.bundleID)
        let iat = try #require(claims["iat"] as? Int)
        let exp = try #require(claims["exp"] as? Int)
        #expect(iat == Int(setup.clock.now.timeIntervalSince1970))
        #expect(exp - iat == 300)
        #expect(jws.signature.count == 64)
    }

    @Test("A sandbox transaction is found after production answers 404, and verified as Sandbox data")
    func sandboxFallback() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.fake.stop() } }
        try setup.fake.addTransaction(Self.transaction("2000000000000202", environment: "Sandbox"), signer: setup.pki.signer(), environment: .sandbox)
        let transaction = try await setup.client.transaction(id: "2000000000000202")
        #expect(transaction.environment == "Sandbox")
        #expect(
            setup.fake.requests.map(\.path) == [
                "/production/inApps/v1/transactions/2000000000000202", "/sandbox/inApps/v1/transactions/2000000000000202"
            ])
    }

    @Test("Unknown in both environments is a typed not-found error")
    func notFound() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.fake.stop() } }
        await #expect {
            _ = try await setup.client.transaction(id: "2000000000000303")
        } throws: { error in
            (error as? AppStoreError)?.apiError?.kind == .transactionNotFound && (error as? AppStoreError)?.apiError?.errorCode == 4040010
        }
        #expect(setup.fake.requests.count == 2)
    }

    @Test("A transaction id that is not digits is refused before any request")
    func invalidID() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.fake.stop() } }
        for id in ["", "12a4", "../../v1/x", "1 2", "١٢٣", String(repeating: "1", count: 65)] {
            await #expect {
                _ = try await setup.client.transaction(id: id)
            } throws: { error in
                (error as? AppStoreError)?.apiError?.kind == .invalidTransactionID
            }
        }
        #expect(setup.fake.requests.isEmpty)
    }

    @Test("Credentials Apple rejects (401) are a configuration error")
    func unauthorized() async throws {
        let wrongKid = try await Self.setup(clientKeyID: "WRONGKEYID")
        defer { Task { await wrongKid.fake.stop() } }
        await #expect { _ = try await wrongKid.client.transaction(id: "1") } throws: { ($0 as? AppStoreError)?.configurationError != nil }
        #expect(wrongKid.fake.authenticationFailures == ["kid is not the key id"])

        let wrongKey = try await Self.setup(clientKey: try SigningKey.generateES256())
        defer { Task { await wrongKey.fake.stop() } }
        await #expect { _ = try await wrongKey.client.transaction(id: "1") } throws: { ($0 as? AppStoreError)?.configurationError != nil }
        #expect(wrongKey.fake.authenticationFailures.first?.hasPrefix("signature does not verify") == true)

        let wrongBundle = try await Self.setup(clientBundleID: "com.other.app")
        defer { Task { await wrongBundle.fake.stop() } }
        await #expect { _ = try await wrongBundle.client.transaction(id: "1") } throws: { ($0 as? AppStoreError)?.configurationError != nil }
        #expect(wrongBundle.fake.authenticationFailures == ["bid is not the bundle id"])
    }

    @Test("500 and 429 are retryable upstream errors of app_store", arguments: [500, 503, 429])
    func serverErrors(_ status: Int) async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.fake.stop() } }
        setup.fake.failTransactionLookups(status: status, environment: .production)
        await #expect {
            _ = try await setup.client.transaction(id: "2000000000000404")
        } throws: { error in
            guard let upstream = error as? UpstreamError else { return false }
            return upstream.service == "app_store" && upstream.retryable && upstream.kind == .badStatus(status)
        }
        // A failing sandbox after a production 404 is an upstream error too, not "not found".
        setup.fake.failTransactionLookups(status: nil, environment: .production)
        setup.fake.failTransactionLookups(status: 500, environment: .sandbox)
        await #expect(throws: UpstreamError.self) { _ = try await setup.client.transaction(id: "2000000000000404") }
    }

    @Test("An unreachable App Store is a retryable upstream error")
    func unreachable() async throws {
        // A port held by a socket that never listens: a stopped fake's port may be reused at once.
        let refusing = try RefusingPort()
        let setup = try await Self.setup(refusedAt: refusing)
        await setup.fake.stop()
        await #expect {
            _ = try await setup.client.transaction(id: "1")
        } throws: { error in
            (error as? UpstreamError).map { $0.service == "app_store" && $0.retryable } ?? false
        }
    }

    @Test("The token is reused until shortly before it expires, then signed anew")
    func tokenReuse() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.fake.stop() } }
        try setup.fake.addTransaction(Self.transaction("7", environment: "Production"), signer: setup.pki.signer(), environment: .production)
        _ = try await setup.client.transaction(id: "7")
        setup.clock.advance(200)
        _ = try await setup.client.transaction(id: "7")
        setup.clock.advance(60)
        _ = try await setup.client.transaction(id: "7")
        let tokens = setup.fake.requests.compactMap { $0.headers["Authorization"] }
        #expect(tokens.count == 3)
        #expect(tokens[0] == tokens[1])
        #expect(tokens[2] != tokens[1])
        #expect(setup.fake.authenticationFailures.isEmpty)
    }

    @Test("A signed transaction of another app is refused by the verifier")
    func otherApp() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.fake.stop() } }
        try setup.fake.addTransaction(
            Self.transaction("8", environment: "Production", bundleID: "com.other.app"),
            signer: setup.pki.signer(), environment: .production)
        await #expect {
            _ = try await setup.client.transaction(id: "8")
        } throws: { error in
            (error as? AppStoreError)?.verificationError?.kind == .wrongAppIdentifier
        }
    }
}
