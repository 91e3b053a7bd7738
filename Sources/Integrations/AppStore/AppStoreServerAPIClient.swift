import Crypto
import Foundation
import JSON
import Synchronization

/// A client of the App Store Server API for looking up one transaction (STORES.md "App Store
/// Server API"): `GET /inApps/v1/transactions/{id}` on the production host, then on the sandbox
/// host when production answers 404, authenticated by an ES256 bearer JWT made from the
/// In-App Purchase key (`.p8`).
///
/// The answer's `signedTransactionInfo` is verified with `verifier`: as Production data when it
/// came from the production host and as Sandbox data when it came from the sandbox host
/// (`verifier.withEnvironment`), so App Review and TestFlight purchases work against a
/// production deployment and keep `environment: Sandbox` in their snapshot.
///
/// The bearer token lives `tokenLifetime` (5 minutes; Apple allows 60) and is reused until one
/// minute before it expires.
public final class AppStoreServerAPIClient: Sendable {
    /// The `aud` claim Apple requires.
    public static let audience = "appstoreconnect-v1"
    /// Apple's `errorCode` for "transaction id not found".
    public static let transactionNotFoundErrorCode = 4040010

    let issuerID: String
    private let keyID: String
    private let privateKey: SigningKey
    private let bundleID: String
    let productionBaseURL: URL
    let sandboxBaseURL: URL
    private let http: any OutboundHTTPClient
    let verifier: AppStoreSignedDataVerifier
    private let tokenLifetime: TimeInterval
    let clock: @Sendable () -> Date
    private let cachedToken = Mutex<(token: String, expires: Date)?>(nil)

    /// A client for the app `bundleID`, signing with `privateKey` (the `.p8` key `keyID` of issuer
    /// `issuerID`). `clock` is the time used for JWT claims and verification.
    public init(
        issuerID: String, keyID: String, privateKey: SigningKey, bundleID: String,
        productionBaseURL: URL, sandboxBaseURL: URL, http: any OutboundHTTPClient, verifier: AppStoreSignedDataVerifier,
        tokenLifetime: Duration = .seconds(300), clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.issuerID = issuerID
        self.keyID = keyID
        self.privateKey = privateKey
        self.bundleID = bundleID
        self.productionBaseURL = productionBaseURL
        self.sandboxBaseURL = sandboxBaseURL
        self.http = http
        self.verifier = verifier
        self.tokenLifetime = min(TimeInterval(tokenLifetime.components.seconds), 3600)
        self.clock = clock
    }

    /// Looks up transaction `id` in production, then in the sandbox, and verifies it.
    /// - Throws: `AppStoreError.api` (`.invalidTransactionID` before any request, `.transactionNotFound`
    ///   when both answer 404, `.requestRejected` for other 4xx); `AppStoreError.configuration` when
    ///   Apple answers 401 (wrong issuer id, key id, key or bundle id); `UpstreamError` (service
    ///   `app_store`) when unreachable, 429, 5xx or unreadable; `AppStoreError.verification` when
    ///   the signed transaction does not verify.
    public func transaction(id: String) async throws -> AppStoreTransaction {
        try Self.checkTransactionID(id)
        for (baseURL, environment) in [(productionBaseURL, AppStoreEnvironment.production), (sandboxBaseURL, .sandbox)] {
            let response = try await get(baseURL, path: "/inApps/v1/transactions/\(id)", environment: environment)
            switch response.status {
            case 200:
                struct Answer: Decodable { let signedTransactionInfo: String }
                guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(response.body)) else {
                    throw UpstreamError(
                        service: "app_store", kind: .invalidResponse,
                        message: "\(environment.rawValue) transaction answer has no signedTransactionInfo")
                }
                return try verifier.withEnvironment(environment).verifyTransaction(answer.signedTransactionInfo, now: clock())
            case 404:
                continue
            default:
                try Self.throwForStatus(response, environment: environment)
            }
        }
        throw AppStoreError.api(
            .init(
                .transactionNotFound, errorCode: Self.transactionNotFoundErrorCode,
                "transaction \(id) is unknown to both the production and the sandbox App Store"))
    }

    /// Refuses, before any request, an id that is not a string of at most 64 digits.
    /// - Throws: `AppStoreError.api` (`.invalidTransactionID`).
    static func checkTransactionID(_ id: String) throws {
        guard !id.isEmpty, id.utf8.count <= 64, id.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw AppStoreError.api(.init(.invalidTransactionID, "an App Store transaction id is a string of digits"))
        }
    }

    /// `GET` `path` on `baseURL` with the bearer token.
    /// - Throws: `AppStoreError.configuration` for a base URL that is not one; `UpstreamError` (service `app_store`).
    func get(_ baseURL: URL, path: String, environment: AppStoreEnvironment) async throws -> OutboundResponse {
        try await send("GET", baseURL, path: path, body: nil, environment: environment)
    }

    /// Sends `method` `path` (with its query) on `baseURL` with the bearer token and, when given, a JSON `body`.
    /// - Throws: `AppStoreError.configuration` for a base URL that is not one; `UpstreamError` (service `app_store`).
    func send(_ method: String, _ baseURL: URL, path: String, body: [UInt8]?, environment: AppStoreEnvironment) async throws -> OutboundResponse {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + path) else {
            throw AppStoreError.configuration(.init("App Store Server API \(environment.rawValue) base URL \(base) is not a URL"))
        }
        var headers: [(name: String, value: String)] = [("Authorization", "Bearer " + (try bearerToken())), ("Accept", "application/json")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let request = OutboundRequest(method: method, url: url, headers: headers, body: body ?? [])
        do {
            return try await http.send(request)
        } catch let error as UpstreamError {
            throw UpstreamError(service: "app_store", kind: error.kind, message: error.message)
        }
    }

    /// Throws the error an answer other than 200 or 404 stands for.
    /// - Throws: always: `AppStoreError.configuration` (401), `UpstreamError` (429, 5xx, other), `AppStoreError.api` (4xx).
    static func throwForStatus(_ response: OutboundResponse, environment: AppStoreEnvironment) throws -> Never {
        struct AppleError: Decodable { let errorCode: Int?; let errorMessage: String? }
        let appleError = try? JSONDecoder().decode(AppleError.self, from: Data(response.body))
        let detail = appleError?.errorCode.map { " (errorCode \($0))" } ?? ""
        switch response.status {
        case 401:
            throw AppStoreError.configuration(
                .init(
                    "the App Store Server API (\(environment.rawValue)) rejected our token (401): check apple.api.issuer_id, "
                        + "key_id, the .p8 private key and the app's bundle id"))
        case 429, 500...599:
            throw UpstreamError(
                service: "app_store", kind: .badStatus(response.status),
                message: "App Store Server API (\(environment.rawValue)) answered \(response.status)\(detail)")
        case 400...499:
            throw AppStoreError.api(
                .init(
                    .requestRejected, errorCode: appleError?.errorCode,
                    "the App Store Server API (\(environment.rawValue)) refused the request with \(response.status)\(detail)"))
        default:
            throw UpstreamError(
                service: "app_store", kind: .badStatus(response.status),
                message: "App Store Server API (\(environment.rawValue)) answered an unexpected \(response.status)")
        }
    }

    /// The current bearer JWT, signed anew when the cached one is within a minute of expiring.
    /// - Throws: `AppStoreError.configuration` for a non-P-256 key, `CryptoError` if signing fails.
    func bearerToken() throws -> String {
        guard privateKey.algorithm == .es256 else {
            throw AppStoreError.configuration(.init("the App Store Server API key must be the P-256 .p8 key from App Store Connect"))
        }
        let now = clock()
        if let cached = cachedToken.withLock({ $0 }), cached.expires.timeIntervalSince(now) > 60 { return cached.token }
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        let expires = issuedAt + Int64(tokenLifetime)
        let header: JSONValue = ["alg": "ES256", "kid": .string(keyID), "typ": "JWT"]
        let claims: JSONValue = [
            "iss": .string(issuerID), "iat": .integer(issuedAt), "exp": .integer(expires),
            "aud": .string(Self.audience), "bid": .string(bundleID)
        ]
        let token = try CompactJWS.sign(header: header, claims: claims, key: privateKey)
        cachedToken.withLock { $0 = (token, Date(timeIntervalSince1970: TimeInterval(expires))) }
        return token
    }
}
