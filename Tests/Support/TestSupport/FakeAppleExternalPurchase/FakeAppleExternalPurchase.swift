import Crypto
import Foundation
import HTTPCore
import HTTPRouting
import Synchronization

/// A fake of Apple's External Purchase Server API on a loopback port: Send External Purchase
/// Report (`PUT /{production|sandbox}/externalPurchase/v1/reports`) and Retrieve External
/// Purchase Report (`GET …/v1/reports/{requestIdentifier}`). The real hosts are
/// `api.storekit.apple.com` and `api.storekit-sandbox.apple.com`; here a path prefix tells them
/// apart, so `productionBaseURL` and `sandboxBaseURL` differ as the real ones do.
///
/// Like Apple it checks the App Store Server API bearer JWT (`FakeAppStoreToken`, the rules of
/// `FakeAppStoreServer`) and answers 401 otherwise. Each report is checked against the shape
/// Apple's pages give (`FakeAppleExternalPurchase+Validation.swift`); a report with errors gets
/// `400` with a `SendReportErrorResponse` and nothing of it is kept, as Apple says. Accepted
/// reports are kept by `requestIdentifier`; sending one again is `400` `DuplicateValueError`
/// (errorCode 1, fieldName `requestIdentifier`). The rules and their sources are in README.md.
public final class FakeAppleExternalPurchase: Sendable {
    /// Which host.
    public typealias Environment = FakeAppStoreServer.Environment

    /// One report request the fake received, whatever it answered.
    public struct Received: Sendable {
        public var environment: Environment
        /// The request body as sent.
        public var body: [UInt8]
        /// The HTTP status answered.
        public var status: Int
        /// The `errorCode`s answered (empty when accepted).
        public var errorCodes: [Int]

        /// The body as a JSON object (nil when it is not one).
        public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    }

    /// One accepted line item, as Apple keeps it for later references.
    struct LineItem: Sendable {
        var eventType: String
        var subscriptionEvent: String?
        var amountTaxExclusive: Int64
        var refundedTaxExclusive: Int64
    }

    struct State: Sendable {
        var received: [Received] = []
        var accepted: [Environment: [(requestIdentifier: String, body: [UInt8])]] = [:]
        var lineItems: [Environment: [String: LineItem]] = [:]
        var forcedFailures: [Int] = []
        var failAfterAccepting = 0
        var authenticationFailures: [String] = []
        var personalDataFindings: [String] = []
    }

    /// The fake's state, shared with the server's handler closure.
    final class Box: Sendable {
        let state = Mutex(State())
    }

    private let server: FakeHTTPServer
    let box: Box

    /// `http://127.0.0.1:PORT/production/externalPurchase`.
    public var productionBaseURL: URL { url("/production/externalPurchase") }
    /// `http://127.0.0.1:PORT/sandbox/externalPurchase`.
    public var sandboxBaseURL: URL { url("/sandbox/externalPurchase") }
    /// Every HTTP request received, in order.
    public var requests: [HTTPRequest] { server.requests }
    /// Every report request received (accepted or not), in order.
    public var received: [Received] { box.state.withLock { $0.received } }
    /// Why each refused token was refused.
    public var authenticationFailures: [String] { box.state.withLock { $0.authenticationFailures } }
    /// Ids that looked like personal data (an `@`), however the report otherwise fared.
    public var personalDataFindings: [String] { box.state.withLock { $0.personalDataFindings } }

    /// Starts on a free loopback port, accepting tokens signed for `credentials`; `clock` is the
    /// fake's now (token checks, `FutureDateError`).
    /// - Throws: `HTTPServerError` when no port can be bound.
    public init(credentials: FakeAppStoreServer.Credentials, clock: @escaping @Sendable () -> Date = { Date() }) throws {
        let box = Box()
        self.box = box
        server = try FakeHTTPServer { request in Self.respond(to: request, credentials: credentials, now: clock(), box: box) }
    }

    /// Stops the server.
    public func stop() async { await server.stop() }

    /// The reports accepted on `environment`, as sent, oldest first.
    public func acceptedReports(_ environment: Environment = .production) -> [[String: Any]] {
        box.state.withLock { $0.accepted[environment] ?? [] }.compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.body))) as? [String: Any]
        }
    }

    /// The line items of every accepted report on `environment`, oldest first.
    public func acceptedLineItems(_ environment: Environment = .production) -> [[String: Any]] {
        acceptedReports(environment).flatMap { $0["lineItems"] as? [[String: Any]] ?? [] }
    }

    /// Answers the next `statuses.count` report or retrieve calls with these statuses (429 or
    /// 5xx) and Apple's error body, before looking at them.
    public func failNext(_ statuses: [Int]) { box.state.withLock { $0.forcedFailures += statuses } }

    /// Accepts the next `count` valid reports but answers them 500, as when Apple's answer is lost
    /// after it kept the report.
    public func failAfterAccepting(_ count: Int) { box.state.withLock { $0.failAfterAccepting += count } }

    private func url(_ path: String) -> URL {
        // A loopback address and a port: always a valid URL.
        URL(string: server.baseURL + path) ?? URL(fileURLWithPath: "/")
    }

    private static func respond(to request: HTTPRequest, credentials: FakeAppStoreServer.Credentials, now: Date, box: Box) -> HTTPResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count >= 4, let environment = Environment(rawValue: parts[0]), parts[1] == "externalPurchase", parts[2] == "v1",
            parts[3] == "reports"
        else {
            return .appleError(code: 4040000, message: "Not found.", status: 404)
        }
        if let failure = FakeAppStoreToken.check(request.headers["Authorization"], credentials: credentials, now: now) {
            box.state.withLock { $0.authenticationFailures.append(failure) }
            return HTTPResponse(status: .unauthorized, contentType: "text/plain", body: "Unauthenticated\n")
        }
        if let forced = box.state.withLock({ $0.forcedFailures.isEmpty ? nil : $0.forcedFailures.removeFirst() }) {
            return forced == 429
                ? .appleError(code: 4290000, message: "Rate limit exceeded.", status: 429)
                : .appleError(code: 5000000, message: "An unknown error occurred.", status: forced)
        }
        switch (request.method, parts.count) {
        case (.put, 4): return send(request.body, environment: environment, now: now, box: box)
        case (.get, 5): return retrieve(parts[4], environment: environment, box: box)
        default: return .appleError(code: 4040000, message: "Not found.", status: 404)
        }
    }

    private static func send(_ body: [UInt8], environment: Environment, now: Date, box: Box) -> HTTPResponse {
        func record(_ status: Int, _ codes: [Int]) {
            box.state.withLock { $0.received.append(Received(environment: environment, body: body, status: status, errorCodes: codes)) }
        }
        guard let report = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            record(400, [4000000])
            return .appleError(code: 4000000, message: "Invalid request.", status: 400)
        }
        let outcome = box.state.withLock { state in
            let findings = personalData(report)
            state.personalDataFindings += findings
            let id = report["requestIdentifier"] as? String ?? ""
            // A resend of an accepted report is a duplicate request, whatever else it holds.
            if state.accepted[environment, default: []].contains(where: { $0.requestIdentifier == id }) {
                let duplicate = FieldError(
                    code: 1, message: "The field's value is already submitted and a duplicate value is not expected.",
                    field: "requestIdentifier", lineItem: nil)
                return (status: 400, errors: [duplicate], lostAnswer: false)
            }
            var errors = validate(report, environment: environment, now: now, known: state.lineItems[environment] ?? [:])
            if !findings.isEmpty {
                errors.append(
                    .init(
                        code: 0, message: "Fake: an id looks like an email address (\(findings.joined(separator: ", "))).", field: nil, lineItem: nil)
                )
            }
            guard errors.isEmpty else { return (status: 400, errors: errors, lostAnswer: false) }
            state.accepted[environment, default: []].append((id, body))
            for item in report["lineItems"] as? [[String: Any]] ?? [] { keep(item, in: &state.lineItems[environment, default: [:]]) }
            let lost = state.failAfterAccepting > 0
            if lost { state.failAfterAccepting -= 1 }
            return (status: 200, errors: [], lostAnswer: lost)
        }
        record(outcome.lostAnswer ? 500 : outcome.status, outcome.errors.map(\.code))
        if outcome.lostAnswer { return .appleError(code: 5000000, message: "An unknown error occurred.", status: 500) }
        guard outcome.status == 200 else {
            return .fakeJSON(["errors": outcome.errors.map(\.json)], status: .badRequest)
        }
        return .fakeJSON(["requestIdentifier": report["requestIdentifier"] as? String ?? ""])
    }

    private static func retrieve(_ id: String, environment: Environment, box: Box) -> HTTPResponse {
        guard let body = box.state.withLock({ $0.accepted[environment]?.last(where: { $0.requestIdentifier == id })?.body }),
            let report = try? JSONSerialization.jsonObject(with: Data(body))
        else {
            return .fakeJSON(
                ["errorCode": 3, "errorMessage": "The referenced value was not found.", "fieldName": "requestIdentifier"], status: .badRequest)
        }
        return .fakeJSON(["report": report])
    }

    /// Remembers an accepted line item (and a refund's effect on the item it refunds).
    private static func keep(_ item: [String: Any], in items: inout [String: LineItem]) {
        guard let id = item["lineItemId"] as? String, let eventType = item["eventType"] as? String else { return }
        let exclusive = Self.integer(item["amountTaxExclusive"]) ?? 0
        if eventType == "REFUND", let reference = item["referenceLineItemId"] as? String {
            items[reference]?.refundedTaxExclusive += exclusive
        }
        items[id] = LineItem(
            eventType: eventType, subscriptionEvent: item["subscriptionEvent"] as? String, amountTaxExclusive: exclusive, refundedTaxExclusive: 0)
    }

    /// A JSON integer (not a boolean, string or fraction).
    static func integer(_ value: Any?) -> Int64? {
        guard let number = value as? NSNumber, !(value is String) else { return nil }
        let type = String(cString: number.objCType)
        guard type != "c", type != "B", number.doubleValue.isFinite, number.doubleValue.rounded() == number.doubleValue else { return nil }
        return number.int64Value
    }
}
