import Foundation

/// Delivers messages with this module's own SMTP client, one connection per message, each
/// dialog on a dedicated thread so blocking socket calls never occupy Swift's cooperative pool.
public struct SMTPTransport: MailTransport {
    /// Where and how to connect.
    public let configuration: SMTPConfiguration

    /// A transport for `configuration`.
    public init(configuration: SMTPConfiguration) {
        self.configuration = configuration
    }

    /// Connects, delivers `message` and quits.
    /// - Throws: `MailError`: transient for connection, TLS, timeout, 4xx and authentication
    ///   failures; permanent for 5xx replies and messages that cannot be formatted.
    public func send(_ message: MailMessage) async throws {
        let payload = try message.rendered()
        let configuration = configuration
        let from = message.from.address
        let to = message.to.address
        try await DedicatedThread.run {
            let session = try SMTPSession(configuration: configuration)
            defer { session.close() }
            try session.deliver(from: from, to: to, payload: payload)
        }
    }
}

/// Runs blocking work on a new thread and resumes the caller when it is done.
enum DedicatedThread {
    /// - Throws: what `body` throws.
    static func run(_ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let thread = Thread {
                do {
                    try body()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.name = "tollgate.mail.smtp"
            thread.start()
        }
    }
}
