import Foundation
import Integrations
import Synchronization
import Testing
import TestSupport

/// A settable clock shared by the provider under test and the fake Google.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date()) { current = Mutex(start) }

    @Sendable func now() -> Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// An `OutboundHTTPClient` answering from a closure and recording requests (no network).
final class ScriptedHTTPClient: OutboundHTTPClient {
    private let answer: @Sendable (OutboundRequest) -> OutboundResponse
    private let recorded = Mutex<[OutboundRequest]>([])

    init(_ answer: @escaping @Sendable (OutboundRequest) -> OutboundResponse) { self.answer = answer }

    var requests: [OutboundRequest] { recorded.withLock { $0 } }

    func send(_ request: OutboundRequest) async throws -> OutboundResponse {
        recorded.withLock { $0.append(request) }
        return answer(request)
    }
}

/// A fake Google Play, a provider and a client wired together over loopback.
struct PlayHarness {
    let clock: TestClock
    let fake: FakeGooglePlay
    let tokens: GoogleAccessTokenProvider
    let client: GooglePlayClient

    init(clock: TestClock = TestClock(), serviceAccountEmail: String? = nil) throws {
        self.clock = clock
        fake = try FakeGooglePlay(now: clock.now)
        let account = try GoogleServiceAccount(json: fake.serviceAccountJSON(clientEmail: serviceAccountEmail))
        let http = URLSessionHTTPClient(service: "play_store")
        tokens = GoogleAccessTokenProvider(serviceAccount: account, http: http, now: clock.now)
        client = GooglePlayClient(
            packageName: fake.packageName, apiBase: try #require(URL(string: fake.baseURL)), tokens: tokens, http: http)
    }

    func stop() async { await fake.stop() }

    /// A provider whose token endpoint is `port`, where connections are refused.
    func tokensRefused(at port: RefusingPort) throws -> GoogleAccessTokenProvider {
        let account = try GoogleServiceAccount(json: fake.serviceAccountJSON(tokenURL: "http://127.0.0.1:\(port.port)/token"))
        return GoogleAccessTokenProvider(serviceAccount: account, http: URLSessionHTTPClient(service: "play_store"), now: clock.now)
    }

    /// A client with this harness's (cached) tokens whose API is `port`, where connections are refused.
    func clientRefused(at port: RefusingPort) throws -> GooglePlayClient {
        GooglePlayClient(
            packageName: fake.packageName, apiBase: try #require(URL(string: "http://127.0.0.1:\(port.port)")), tokens: tokens,
            http: URLSessionHTTPClient(service: "play_store"))
    }
}

enum PlayVectors {
    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: SharedVectors.url("google/" + path)))
    }

    static func text(_ path: String) throws -> String {
        String(decoding: try bytes(path), as: UTF8.self)
    }

    static func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(try bytes(path))) as? [String: Any])
    }
}

/// Expects `body` to throw a `GooglePlayError` of `kind`; returns it.
@discardableResult
func expectPlayError(
    _ kind: GooglePlayError.Kind, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> GooglePlayError? {
    do {
        try await body()
        Issue.record("expected GooglePlayError.\(kind), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as GooglePlayError {
        #expect(error.kind == kind, "got \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected GooglePlayError.\(kind), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Expects `body` to throw an `UpstreamError` for `play_store`; returns it.
@discardableResult
func expectUpstream(sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async -> UpstreamError? {
    do {
        try await body()
        Issue.record("expected UpstreamError, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as UpstreamError {
        #expect(error.service == "play_store", sourceLocation: sourceLocation)
        #expect(error.reportError == nil, "a refused report, not an outage: \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected UpstreamError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
