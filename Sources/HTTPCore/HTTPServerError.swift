internal import Glibc

/// Why the server could not start: the failing step, and the system error when there is one
/// (for example "cannot bind 0.0.0.0:8080: Address already in use").
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    /// What failed, in words a user can act on.
    public let message: String
    /// The `errno` of the failing system call, when one failed.
    public let errorNumber: Int32?

    /// An error without a system error number.
    public init(_ message: String) {
        self.message = message
        self.errorNumber = nil
    }

    /// An error for a failed system call: `"<context>: <strerror(errno)>"`.
    init(_ context: String, errno number: Int32) {
        self.message = "\(context): \(HTTPServerError.text(for: number))"
        self.errorNumber = number
    }

    public var description: String { message }

    /// `strerror_r` text for an errno value.
    static func text(for number: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        // Glibc exports the XSI strerror_r here: it fills the buffer and returns 0.
        guard strerror_r(number, &buffer, buffer.count) == 0 else { return "error \(number)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
