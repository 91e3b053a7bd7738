import Foundation
import Sockets

/// What it takes to ask the server to cancel the statement a session is running: its process id
/// and secret key, sent on a new connection (a CancelRequest). Sendable, so another thread can
/// cancel while the connection's own thread waits.
public struct PostgresCancelToken: Sendable {
    let endpoint: PostgresConfiguration.Endpoint
    let processID: Int32
    let secretKey: Int32
    var timeout: Duration

    /// Sends the CancelRequest and closes. Best effort, as the protocol has it: the server sends
    /// no answer, and a statement that already finished is not affected.
    /// - Throws: `PostgresError` (`.connection`, `.timeout`) when the server cannot be reached.
    public func cancel() throws {
        let socket = try endpoint.connect(timeout: timeout)
        defer { socket.close() }
        var request = FrontendMessages()
        request.cancelRequest(processID: processID, secretKey: secretKey)
        try PostgresError.translating {
            try socket.setTimeout(timeout)
            try socket.write(request.bytes)
        }
        // Wait for the server to close its end, so the cancel has been read before returning.
        var sink: [UInt8] = []
        _ = try? socket.read(into: &sink, count: 16)
    }
}
