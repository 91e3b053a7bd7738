/// A long-running part of the service (the HTTP server, the mail outbox worker, the event
/// delivery worker): `run()` works until its task is cancelled, then finishes what is in
/// flight and returns. It throws only when it cannot go on (the socket cannot be bound).
public protocol Service: Sendable {
    /// - Throws: when the service cannot start or fails for good; cancellation is a normal stop.
    func run() async throws
}
