import Crypto
import Foundation
import JSON

/// Obtains OAuth access tokens for the Play Developer API with a service account (the JWT
/// bearer grant of RFC 7523) and caches them.
///
/// Each token is reused until `refreshMargin` before its `expires_in`; concurrent callers
/// share one in-flight request; `invalidate(_:)` drops a token the API answered 401 to.
public actor GoogleAccessTokenProvider {
    /// The only scope requested.
    public static let scope = "https://www.googleapis.com/auth/androidpublisher"
    /// Assertion lifetime; Google accepts at most one hour.
    public static let assertionLifetime: Int64 = 3600

    /// The account whose key signs the assertions.
    public nonisolated let serviceAccount: GoogleServiceAccount
    /// Where assertions are posted; also their `aud`.
    public nonisolated let tokenURL: URL
    private let http: any OutboundHTTPClient
    private let now: @Sendable () -> Date
    private let refreshMargin: TimeInterval

    private struct CachedToken: Sendable {
        let value: String
        let refreshAt: Date
    }

    private var cached: CachedToken?
    private var refresh: Task<CachedToken, any Error>?
    /// Bumped by `invalidate`, so a refresh that started before it cannot restore a stale token.
    private var generation = 0

    /// Creates a provider.
    /// - Parameters:
    ///   - tokenURL: overrides the account's `token_uri` (both the POST target and `aud`).
    ///   - refreshMargin: how long before expiry a token is replaced (at most half its lifetime).
    ///   - now: the clock; tests inject one.
    public init(
        serviceAccount: GoogleServiceAccount, http: any OutboundHTTPClient, tokenURL: URL? = nil,
        refreshMargin: Duration = .seconds(60), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.serviceAccount = serviceAccount
        self.tokenURL = tokenURL ?? serviceAccount.tokenURL
        self.http = http
        self.now = now
        let components = refreshMargin.components
        self.refreshMargin = max(0, Double(components.seconds) + Double(components.attoseconds) / 1e18)
    }

    /// A valid access token, from the cache or freshly issued.
    /// - Throws: `GooglePlayError.tokenRejected` when Google refuses the assertion (a configuration
    ///   problem); `UpstreamError(service: "play_store")` when the token endpoint is unreachable,
    ///   answers 5xx/429 or garbage.
    public func accessToken() async throws -> String {
        if let cached, now() < cached.refreshAt { return cached.value }
        if let refresh { return try await refresh.value.value }
        let startedGeneration = generation
        let (account, url, http, now, margin) = (serviceAccount, tokenURL, http, now, refreshMargin)
        let task = Task {
            try await Self.requestToken(account: account, tokenURL: url, http: http, now: now, refreshMargin: margin)
        }
        refresh = task
        do {
            let token = try await task.value
            refresh = nil
            if generation == startedGeneration { cached = token }
            return token.value
        } catch {
            refresh = nil
            throw error
        }
    }

    /// Forgets the cached token so the next call requests a new one. With `rejectedToken`, only
    /// when it is still the cached one (several requests answered 401 cause one refresh).
    public func invalidate(_ rejectedToken: String? = nil) {
        guard let current = cached else { return }
        if let rejectedToken, rejectedToken != current.value { return }
        cached = nil
        generation += 1
    }

    /// The signed assertion for `issuedAt`: header `{"alg":"RS256","typ":"JWT","kid"}`, claims
    /// `iss`, `scope`, `aud` (the token URL), `iat`, `exp = iat + 3600`, in that order.
    /// - Throws: `CryptoError` if signing fails.
    public nonisolated func assertion(issuedAt: Date) throws -> String {
        try Self.makeAssertion(account: serviceAccount, audience: tokenURL.absoluteString, issuedAt: issuedAt)
    }

    /// The `application/x-www-form-urlencoded` body posted to the token endpoint.
    public nonisolated static func tokenRequestBody(assertion: String) -> String {
        "grant_type=" + formEncode("urn:ietf:params:oauth:grant-type:jwt-bearer") + "&assertion=" + formEncode(assertion)
    }

    static func makeAssertion(account: GoogleServiceAccount, audience: String, issuedAt: Date) throws -> String {
        let iat = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        let header: JSONValue = ["alg": "RS256", "typ": "JWT", "kid": .string(account.privateKeyID)]
        let claims: JSONValue = [
            "iss": .string(account.clientEmail), "scope": .string(scope), "aud": .string(audience),
            "iat": .integer(iat), "exp": .integer(iat + assertionLifetime)
        ]
        return try CompactJWS.sign(header: header, claims: claims, key: account.signingKey)
    }

    private static func requestToken(
        account: GoogleServiceAccount, tokenURL: URL, http: any OutboundHTTPClient,
        now: @Sendable () -> Date, refreshMargin: TimeInterval
    ) async throws -> CachedToken {
        let issuedAt = now()
        let assertion: String
        do {
            assertion = try makeAssertion(account: account, audience: tokenURL.absoluteString, issuedAt: issuedAt)
        } catch {
            throw GooglePlayError(.invalidServiceAccount, "the service account key cannot sign the OAuth assertion")
        }
        let request = OutboundRequest(
            method: "POST", url: tokenURL,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: Array(tokenRequestBody(assertion: assertion).utf8))
        let response = try await GooglePlayClient.send(request, via: http)
        return try parseTokenResponse(response, issuedAt: issuedAt, refreshMargin: refreshMargin)
    }

    private static func parseTokenResponse(_ response: OutboundResponse, issuedAt: Date, refreshMargin: TimeInterval) throws -> CachedToken {
        switch response.status {
        case 200..<300:
            guard let object = GoogleJSON.object(response.body), let token = object["access_token"]?.nonEmptyString else {
                throw UpstreamError(
                    service: GooglePlayClient.service, kind: .invalidResponse, message: "the OAuth token response has no access_token")
            }
            let lifetime: Int64
            if object["expires_in"] == nil {
                lifetime = assertionLifetime
            } else if let value = object["expires_in"]?.int64OrDecimal, value > 0 {
                lifetime = value
            } else {
                throw UpstreamError(
                    service: GooglePlayClient.service, kind: .invalidResponse, message: "the OAuth token response has an unusable expires_in")
            }
            let margin = min(refreshMargin, Double(lifetime) / 2)
            return CachedToken(value: token, refreshAt: issuedAt.addingTimeInterval(Double(lifetime) - margin))
        case 429, 500...:
            throw UpstreamError(
                service: GooglePlayClient.service, kind: .badStatus(response.status), message: "the OAuth token endpoint answered \(response.status)")
        case 400..<500:
            let object = GoogleJSON.object(response.body)
            let code = object?["error"]?.nonEmptyString.map { String($0.prefix(60)) } ?? "HTTP \(response.status)"
            let detail = object?["error_description"]?.nonEmptyString.map { " (\($0.prefix(200)))" } ?? ""
            throw GooglePlayError(
                .tokenRejected,
                "Google refused the service account assertion: \(code)\(detail). Check the service account key file "
                    + "(client_email, private_key_id, a key not deleted in the Cloud console) and the server clock")
        default:
            throw UpstreamError(
                service: GooglePlayClient.service, kind: .badStatus(response.status), message: "the OAuth token endpoint answered \(response.status)")
        }
    }

    /// Percent-encodes all but RFC 3986 unreserved characters (as Google's client libraries do).
    static func formEncode(_ text: String) -> String {
        GooglePlayClient.percentEncode(text)
    }
}
