import Foundation

/// What a finished child process left: how it ended and everything it printed.
public struct ProcessResult: Sendable {
    /// The exit status, or the number of the signal that ended the process (`SIGKILL` is 9).
    public let status: Int32
    /// True when a signal ended the process; `status` is then the signal's number.
    public let endedBySignal: Bool
    /// Everything written to standard output (empty when it was not captured).
    public let stdout: Data
    /// Everything written to standard error (empty when it was not captured).
    public let stderr: Data

    /// A result with these parts.
    public init(status: Int32, endedBySignal: Bool, stdout: Data, stderr: Data) {
        self.status = status
        self.endedBySignal = endedBySignal
        self.stdout = stdout
        self.stderr = stderr
    }

    /// Standard output as UTF-8 text (invalid bytes replaced).
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }

    /// Standard error as UTF-8 text (invalid bytes replaced).
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}
