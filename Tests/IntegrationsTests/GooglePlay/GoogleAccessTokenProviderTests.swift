import Crypto
import Foundation
import Integrations
import Testing
import TestSupport

@Suite("Google access tokens")
struct GoogleAccessTokenProviderTests {
    static let vectorAudience = "https://oauth2.googleapis.com/token"

    private func vectorProvider(http: any OutboundHTTPClient, now: @escaping @Sendable () -> Date) throws -> GoogleAccessTokenProvider {
        let account = try GoogleServiceAccount(json: PlayVectors.bytes("google-auth-testdata/service_account.json"))
        return GoogleAccessTokenProvider(
            serviceAccount: account, http: http, tokenURL: URL(string: Self.vectorAudience), now: now)
    }

    @Test("The provider's assertion reproduces the RS256 vector byte for byte")
    func assertionVector() throws {
        let vector = try PlayVectors.json("sa_jwt_vector.json")
        let provider = try vectorProvider(http: ScriptedHTTPClient { _ in OutboundResponse(status: 500) }, now: { Date() })
        let assertion = try provider.assertion(issuedAt: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(assertion == vector["assertion"] as? String)
        let jws = try CompactJWS(parsing: assertion)
        #expect(String(decoding: jws.header, as: UTF8.self) == vector["header_json"] as? String)
        #expect(String(decoding: jws.payload, as: UTF8.self) == vector["claims_json"] as? String)
        let signingInput = try PlayVectors.text("sa_jwt_signing_input.txt").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(String(decoding: jws.signingInput, as: UTF8.self) == signingInput)
        #expect(jws.signature == (try PlayVectors.bytes("sa_jwt_signature.bin")))
        try jws.verify(with: VerificationKey(pem: PlayVectors.text("sa_pub.pem")))
    }

    @Test("The token request is the vector's form body, and the vector response yields its token")
    func tokenRequestVector() async throws {
        let vector = try PlayVectors.json("sa_jwt_vector.json")
        let tokenResponse = try JSONSerialization.data(withJSONObject: try #require(vector["example_token_response"]))
        let http = ScriptedHTTPClient { _ in OutboundResponse(status: 200, headers: ["content-type": "application/json"], body: Array(tokenResponse))
        }
        let provider = try vectorProvider(http: http, now: { Date(timeIntervalSince1970: 1_700_000_000) })
        #expect(try await provider.accessToken() == "ya29.test-access-token")
        let request = try #require(http.requests.first)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == Self.vectorAudience)
        #expect(String(decoding: request.body, as: UTF8.self) == vector["token_request_body"] as? String)
        #expect(request.headers.first { $0.name == "Content-Type" }?.value == vector["token_request_content_type"] as? String)
    }

    @Test("Two calls share one token; the fake verified the assertion")
    func caching() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        let first = try await harness.tokens.accessToken()
        let second = try await harness.tokens.accessToken()
        #expect(first == second)
        #expect(harness.fake.tokenRequestCount == 1)
        #expect(harness.fake.issuedTokenCount == 1)
        #expect(harness.fake.tokenRejections.isEmpty)
    }

    @Test("A token is refreshed a minute before expires_in, given as a number or a string", arguments: [false, true])
    func refreshBeforeExpiry(asString: Bool) async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        harness.fake.setTokenLifetime(seconds: 3600, asString: asString)
        let first = try await harness.tokens.accessToken()
        harness.clock.advance(by: 3000)
        #expect(try await harness.tokens.accessToken() == first)
        #expect(harness.fake.tokenRequestCount == 1)
        harness.clock.advance(by: 541)
        let second = try await harness.tokens.accessToken()
        #expect(second != first)
        #expect(harness.fake.tokenRequestCount == 2)
        #expect(harness.fake.tokenRejections.isEmpty)
    }

    @Test("Concurrent callers share one in-flight token request")
    func concurrentCallers() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        harness.fake.setTokenEndpointDelay(.milliseconds(300))
        let tokens = harness.tokens
        let values = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<10 { group.addTask { try await tokens.accessToken() } }
            var values: Set<String> = []
            for try await value in group { values.insert(value) }
            return values
        }
        #expect(values.count == 1)
        #expect(harness.fake.tokenRequestCount == 1)
    }

    @Test("invalidate drops the cached token only when it is the rejected one")
    func invalidate() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        let first = try await harness.tokens.accessToken()
        await harness.tokens.invalidate("some-older-token")
        #expect(try await harness.tokens.accessToken() == first)
        await harness.tokens.invalidate(first)
        #expect(try await harness.tokens.accessToken() != first)
        #expect(harness.fake.tokenRequestCount == 2)
    }

    @Test("Google refusing the assertion is a typed configuration error")
    func rejectedAssertion() async throws {
        let harness = try PlayHarness(serviceAccountEmail: "someone-else@fake-project.iam.gserviceaccount.com")
        defer { Task { await harness.stop() } }
        let error = await expectPlayError(.tokenRejected) { _ = try await harness.tokens.accessToken() }
        #expect(error?.isConfigurationError == true)
        #expect(error?.message.contains("invalid_grant") == true)
        #expect(error?.message.contains("PRIVATE KEY") == false)
        #expect(harness.fake.tokenRejections == ["Invalid grant: account not found"])
    }

    @Test("A token endpoint outage or a closed port is a retryable upstream error")
    func tokenOutage() async throws {
        let harness = try PlayHarness()
        harness.fake.setOutage(true)
        let outage = await expectUpstream { _ = try await harness.tokens.accessToken() }
        #expect(outage?.kind == .badStatus(503))
        #expect(outage?.retryable == true)
        await harness.stop()
        // A port held by a socket that never listens: a stopped fake's port may be reused at once.
        let refusing = try RefusingPort()
        let tokens = try harness.tokensRefused(at: refusing)
        let closed = await expectUpstream { _ = try await tokens.accessToken() }
        #expect(closed?.kind == .unreachable)
        #expect(closed?.retryable == true)
    }

    @Test("The fake token endpoint verifies assertions like Google")
    func fakeVerifiesAssertions() async throws {
        let clock = TestClock()
        let harness = try PlayHarness(clock: clock)
        defer { Task { await harness.stop() } }
        let account = try GoogleServiceAccount(json: harness.fake.serviceAccountJSON())
        let tokenURL = try #require(URL(string: harness.fake.tokenURL))
        let http = URLSessionHTTPClient(service: "play_store")
        func post(_ assertion: String) async throws -> Int {
            let body = GoogleAccessTokenProvider.tokenRequestBody(assertion: assertion)
            let response = try await http.send(
                OutboundRequest(
                    method: "POST", url: tokenURL, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(body.utf8)))
            return response.status
        }
        let signer = GoogleAccessTokenProvider(serviceAccount: account, http: http)
        let valid = try signer.assertion(issuedAt: clock.now())
        let other = try signer.assertion(issuedAt: clock.now().addingTimeInterval(-1))
        let parts = valid.split(separator: ".")
        let forged = String(parts[0] + "." + parts[1] + "." + other.split(separator: ".")[2])
        let wrongAudience = try GoogleAccessTokenProvider(
            serviceAccount: account, http: http, tokenURL: URL(string: "https://oauth2.googleapis.com/token")
        ).assertion(issuedAt: clock.now())
        let stale = try signer.assertion(issuedAt: clock.now().addingTimeInterval(-3000))
        #expect(try await post(forged) == 400)
        #expect(try await post(wrongAudience) == 400)
        #expect(try await post(stale) == 400)
        #expect(harness.fake.tokenRejections.count == 3)
        #expect(harness.fake.tokenRejections[0] == "Invalid JWT Signature.")
        #expect(harness.fake.tokenRejections[1].hasPrefix("Invalid JWT: Failed audience check."))
        #expect(harness.fake.tokenRejections[2].contains("short-lived token"))
        #expect(try await post(valid) == 200)
    }
}
