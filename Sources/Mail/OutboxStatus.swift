/// Where an outbox message stands.
public enum OutboxStatus: String, Sendable, Equatable, CaseIterable {
    /// Waiting for its next attempt (`next_attempt_at`).
    case pending
    /// Claimed by the worker; a delivery is in progress (or was, before a crash).
    case sending
    /// Accepted by the transport.
    case sent
    /// Given up: a permanent error, or retries for too long; `last_error` says why.
    case failed
}
