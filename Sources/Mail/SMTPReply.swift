/// One SMTP reply: a three-digit code and its text lines (RFC 5321 §4.2), for example
/// `250-mail.example` / `250-STARTTLS` / `250 AUTH PLAIN LOGIN`.
struct SMTPReply: Sendable, Equatable {
    /// The reply code, 200–599.
    let code: Int
    /// The text after the code on each line.
    let lines: [String]

    /// 2xx.
    var isPositive: Bool { code >= 200 && code < 300 }

    /// The text of all lines joined with spaces, for errors (the server's words).
    var text: String { lines.joined(separator: " ") }

    /// `code text`, at most 300 characters, for errors and the outbox's `last_error`.
    var summary: String {
        let full = "\(code) \(text)"
        return full.count > 300 ? String(full.prefix(300)) + "…" : full
    }
}

/// Incremental parser of SMTP replies over a byte buffer: returns a reply once its last line
/// (`ddd text`) has arrived, enforcing line and line-count limits against a hostile server.
struct SMTPReplyParser {
    static let maximumLineLength = 2048
    static let maximumLines = 100

    private var lines: [String] = []
    private var code: Int?

    /// Consumes complete lines from the front of `buffer`; returns the reply when complete.
    /// - Throws: `MailError` (transient) for a malformed or oversized reply.
    mutating func parse(_ buffer: inout [UInt8]) throws -> SMTPReply? {
        while let newline = buffer.firstIndex(of: 10) {
            var end = newline
            if end > 0, buffer[end - 1] == 13 { end -= 1 }
            let line = Array(buffer[0..<end])
            buffer.removeSubrange(0...newline)
            guard line.count >= 3, line.count <= Self.maximumLineLength,
                line[0..<3].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let value = Int(String(decoding: line[0..<3], as: UTF8.self)), value >= 200, value <= 599
            else {
                throw MailError.transient("the SMTP server sent a malformed reply line")
            }
            if let code, code != value {
                throw MailError.transient("the SMTP server changed the reply code inside a multi-line reply")
            }
            code = value
            let separator = line.count > 3 ? line[3] : UInt8(ascii: " ")
            let text = line.count > 4 ? String(decoding: line[4...], as: UTF8.self) : ""
            lines.append(text)
            guard lines.count <= Self.maximumLines else {
                throw MailError.transient("the SMTP server sent a reply of more than \(Self.maximumLines) lines")
            }
            if separator == UInt8(ascii: " ") {
                let reply = SMTPReply(code: value, lines: lines)
                lines = []
                self.code = nil
                return reply
            }
            guard separator == UInt8(ascii: "-") else {
                throw MailError.transient("the SMTP server sent a malformed reply line")
            }
        }
        if buffer.count > Self.maximumLineLength {
            throw MailError.transient("the SMTP server sent a reply line longer than \(Self.maximumLineLength) bytes")
        }
        return nil
    }
}
