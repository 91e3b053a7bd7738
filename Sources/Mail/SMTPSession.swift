import Crypto
import Foundation
import Sockets

/// One blocking SMTP dialog (RFC 5321) delivering one message: greeting, EHLO, STARTTLS or
/// implicit TLS, AUTH PLAIN / LOGIN, MAIL FROM, RCPT TO, DATA, QUIT.
///
/// Runs on a dedicated thread (see `SMTPTransport`). Every read has a deadline (the reply timeout,
/// or the DATA timeout for the reply to the message), every write the reply timeout. Reply codes:
/// 2xx/3xx as expected continue, 4xx is a transient failure, 5xx a permanent one, carrying the
/// server's text. Failures of the connection, TLS or the server's capabilities are transient: the
/// message is retried, and is never sent in plaintext when TLS was configured.
///
/// Not Sendable: owns its socket and TLS session.
final class SMTPSession {
    private let configuration: SMTPConfiguration
    private let socket: BlockingSocket
    private var tls: TLSClientConnection?
    private var buffer: [UInt8] = []
    private var extensions: [String: String] = [:]

    /// Connects (and for implicit TLS, handshakes).
    /// - Throws: `MailError`.
    init(configuration: SMTPConfiguration) throws {
        self.configuration = configuration
        socket = try MailError.translating {
            try BlockingSocket(host: configuration.host, port: configuration.port, timeout: configuration.connectTimeout)
        }
        if configuration.security == .tls {
            try startTLS()
        }
    }

    deinit { close() }

    /// Delivers `message` (already rendered to `payload`) and quits.
    /// - Throws: `MailError`.
    func deliver(from: String, to: String, payload: [UInt8]) throws {
        try expect(readReply(), 220, during: "the greeting")
        try hello()
        if configuration.security == .starttls {
            guard extensions["STARTTLS"] != nil else {
                throw MailError.transient("the SMTP server does not offer STARTTLS; refusing to send in plaintext")
            }
            try expect(command("STARTTLS"), 220, during: "STARTTLS")
            // Bytes that arrived before the handshake would be plaintext injected into the TLS
            // session (CVE-2011-0411 style); refuse them.
            guard buffer.isEmpty else {
                throw MailError.transient("the SMTP server sent data after agreeing to STARTTLS")
            }
            try startTLS()
            try hello()
        }
        if let username = configuration.username {
            try authenticate(username: username, password: configuration.password ?? "")
        }
        try expect(command("MAIL FROM:<\(from)>"), 250, during: "MAIL FROM")
        let recipient = try command("RCPT TO:<\(to)>")
        if recipient.code != 251 { try expect(recipient, 250, during: "RCPT TO") }
        try expect(command("DATA"), 354, during: "DATA")
        try write(Self.dotStuffed(payload))
        try expect(readReply(timeout: configuration.dataTimeout), 250, during: "the end of DATA")
        // The message is accepted; a failing QUIT changes nothing.
        _ = try? command("QUIT")
    }

    /// Closes TLS (close_notify) and the socket. Idempotent.
    func close() {
        tls?.shutdown()
        tls = nil
        socket.close()
    }

    // MARK: - Steps

    private func hello() throws {
        let reply = try command("EHLO \(configuration.heloName)")
        try expect(reply, 250, during: "EHLO")
        extensions = [:]
        for line in reply.lines.dropFirst() {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard let keyword = parts.first else { continue }
            extensions[keyword.uppercased()] = parts.count > 1 ? String(parts[1]).uppercased() : ""
        }
    }

    private func startTLS() throws {
        try MailError.translating { try socket.setTimeout(configuration.connectTimeout) }
        do {
            tls = try TLSClientConnection(
                fd: socket.fd, host: configuration.host, configuration: TLSClientConfiguration(caFile: configuration.caFile))
        } catch let error as CryptoError {
            // Transient: the operator can fix the configuration (CA file, host name) and the
            // outbox retries; the message is never sent in plaintext meanwhile.
            throw MailError.transient(error.description)
        }
    }

    private func authenticate(username: String, password: String) throws {
        guard let mechanisms = extensions["AUTH"]?.split(separator: " ") else {
            throw MailError.transient("the SMTP server does not offer AUTH but a username is configured")
        }
        if mechanisms.contains("PLAIN") {
            let token = Data(([0] + Array(username.utf8) + [0] + Array(password.utf8))).base64EncodedString()
            try expectAuth(command("AUTH PLAIN \(token)"))
        } else if mechanisms.contains("LOGIN") {
            try expect(command("AUTH LOGIN"), 334, during: "AUTH LOGIN")
            try expect(command(Data(username.utf8).base64EncodedString()), 334, during: "AUTH LOGIN")
            try expectAuth(command(Data(password.utf8).base64EncodedString()))
        } else {
            throw MailError.transient("the SMTP server offers neither AUTH PLAIN nor AUTH LOGIN")
        }
    }

    /// An authentication refusal is a configuration problem the operator fixes: transient, so
    /// the message waits for the corrected login instead of failing.
    private func expectAuth(_ reply: SMTPReply) throws {
        guard reply.code == 235 else {
            throw MailError.transient("SMTP authentication failed: \(reply.summary)", replyCode: reply.code)
        }
    }

    // MARK: - I/O

    private func command(_ line: String) throws -> SMTPReply {
        try write(Array((line + "\r\n").utf8))
        return try readReply()
    }

    private func expect(_ reply: SMTPReply, _ code: Int, during step: String) throws {
        guard reply.code != code else { return }
        let text = "the SMTP server answered \(step) with \(reply.summary)"
        if reply.code >= 500 { throw MailError.permanent(text, replyCode: reply.code) }
        throw MailError.transient(text, replyCode: reply.code)
    }

    private func readReply(timeout: Duration? = nil) throws -> SMTPReply {
        let limit = timeout ?? configuration.replyTimeout
        let deadline = ContinuousClock.now + limit
        var parser = SMTPReplyParser()
        while true {
            if let reply = try parser.parse(&buffer) { return reply }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                throw MailError.transient("timed out after \(limit.milliseconds) ms waiting for the SMTP server")
            }
            try MailError.translating { try socket.setTimeout(remaining) }
            if let tls {
                do {
                    _ = try tls.read(into: &buffer, count: 4096)
                } catch let error as CryptoError {
                    throw MailError.transient(error.description)
                }
            } else {
                try MailError.translating { try socket.read(into: &buffer, count: 4096) }
            }
        }
    }

    private func write(_ bytes: [UInt8]) throws {
        try MailError.translating { try socket.setTimeout(configuration.replyTimeout) }
        if let tls {
            do {
                try tls.write(bytes)
            } catch let error as CryptoError {
                throw MailError.transient(error.description)
            }
        } else {
            try MailError.translating { try socket.write(bytes) }
        }
    }

    /// The DATA payload: every line ends with CRLF, a line starting with `.` gets a second `.`
    /// (RFC 5321 §4.5.2), and the terminating `.` line is appended.
    static func dotStuffed(_ message: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(message.count + message.count / 64 + 5)
        var lines = TextLines.split(message)
        // A message ending with a line break yields an empty last "line": it is not a line.
        if lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
        for line in lines {
            if line.first == UInt8(ascii: ".") { output.append(UInt8(ascii: ".")) }
            output += line
            output += [13, 10]
        }
        output += Array(".\r\n".utf8)
        return output
    }
}
