/// Sends requests to the outside world. Production uses `URLSessionHTTPClient`; tests use
/// the same client against fake servers on loopback.
public protocol OutboundHTTPClient: Sendable {
    /// Sends `request` and returns the response, whatever its status.
    /// - Throws: `UpstreamError` when no response arrived (unreachable, timed out).
    func send(_ request: OutboundRequest) async throws -> OutboundResponse
}
