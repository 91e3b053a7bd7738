import Domain
import Foundation
import Integrations

/// `tollgate events test`: sends one signed `test` event to each endpoint, now, outside the
/// queue (nothing is stored), and reports what each answered.
public struct SendTestEvent: Sendable {
    /// One endpoint's answer.
    public struct Answer: Sendable {
        public let endpointID: String
        public let url: String
        /// The HTTP status, nil when no answer came.
        public let status: Int?
        /// The start of the answer's body, or why there was none.
        public let detail: String
        public let milliseconds: Int

        /// Whether the endpoint accepted the event (2xx).
        public var accepted: Bool { status.map { (200..<300).contains($0) } ?? false }
    }

    let endpoints: [EventEndpoint]
    let http: any OutboundHTTPClient
    let timeout: Duration

    public init(endpoints: [EventEndpoint], http: any OutboundHTTPClient, timeout: Duration = .seconds(10)) {
        self.endpoints = endpoints
        self.http = http
        self.timeout = timeout
    }

    /// - Throws: `CryptoError` (random source, signing).
    public func send(now: Date) async throws -> [Answer] {
        var answers: [Answer] = []
        for endpoint in endpoints {
            let id = try EntityID.makeTimeOrdered("evt", at: now)
            let body = Array(
                #"{"id":"\#(id)","type":"test","occurred_at":"\#(Timestamp.rfc3339(now))","sequence":0,"data":{"message":"A test event from tollgate events test."}}"#
                    .utf8)
            var headers = try endpoint.signer.headers(id: id, timestamp: Int(now.timeIntervalSince1970), body: body)
            headers.append(("Content-Type", "application/json"))
            headers.append(("User-Agent", "Tollgate-Events/1"))
            let started = ContinuousClock.now
            do {
                let response = try await http.send(OutboundRequest(method: "POST", url: endpoint.url, headers: headers, body: body, timeout: timeout))
                let text = String(decoding: response.body.prefix(200), as: UTF8.self)
                answers.append(
                    Answer(
                        endpointID: endpoint.id, url: endpoint.url.absoluteString, status: response.status, detail: text,
                        milliseconds: Self.milliseconds(since: started)))
            } catch let error as UpstreamError {
                answers.append(
                    Answer(
                        endpointID: endpoint.id, url: endpoint.url.absoluteString, status: nil, detail: error.message,
                        milliseconds: Self.milliseconds(since: started)))
            }
        }
        return answers
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        let elapsed = start.duration(to: .now).components
        return Int(elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000)
    }
}
