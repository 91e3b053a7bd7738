/// Why the server rejected bytes it received: the status to answer with and a short
/// message for the client. The connection is always closed afterwards.
struct HTTPParseError: Error, Equatable, CustomStringConvertible {
    let status: HTTPStatus
    let message: String

    init(_ status: HTTPStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    var description: String { "\(status.code) \(message)" }

    static func badRequest(_ message: String) -> HTTPParseError { HTTPParseError(.badRequest, message) }
}
