import Domain
import Mail
import Foundation
import Testing
@testable import Mail

/// RFC 5322 / MIME formatting, quoted-printable, RFC 2047 and injection refusal.
@Suite struct MessageFormattingTests {
    func message(
        subject: String = "Your code", text: String = "Hello\nworld", html: String? = "<p>Hello</p>",
        toName: String? = "Jane Doe"
    ) throws -> MailMessage {
        MailMessage(
            outboxID: "abc123", template: "redemption_code",
            from: try MailAddress("noreply@tollgate.test", displayName: "Tollgate"),
            to: try MailAddress("jane@example.com", displayName: toName), subject: subject, textBody: text,
            htmlBody: html, messageID: "<abc123@tollgate.test>", date: Date(timeIntervalSince1970: 1_751_371_200))
    }

    func headers(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        return String(text[..<(text.range(of: "\r\n\r\n")?.lowerBound ?? text.endIndex)])
    }

    @Test func headersAreCompleteAndEveryLineEndsWithCRLF() throws {
        let bytes = try message().rendered()
        let head = headers(bytes)
        #expect(head.contains("Date: Tue, 01 Jul 2025 12:00:00 +0000\r\n"))
        #expect(head.contains("From: \"Tollgate\" <noreply@tollgate.test>\r\n"))
        #expect(head.contains("To: \"Jane Doe\" <jane@example.com>\r\n"))
        #expect(head.contains("Subject: Your code\r\n"))
        #expect(head.contains("Message-ID: <abc123@tollgate.test>\r\n"))
        #expect(head.contains("MIME-Version: 1.0\r\n"))
        #expect(head.contains("Content-Type: multipart/alternative;\r\n boundary=\"=_tollgate_"))
        // No bare LF or CR anywhere, and no line over 998 characters.
        for (index, byte) in bytes.enumerated() {
            if byte == 10 { #expect(index > 0 && bytes[index - 1] == 13) }
            if byte == 13 { #expect(index + 1 < bytes.count && bytes[index + 1] == 10) }
        }
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.utf8.count <= 998 })
    }

    @Test func multipartHasTextThenHTMLWithQuotedPrintableUTF8() throws {
        let text = String(decoding: try message(text: "Grüße", html: "<p>Grüße</p>").rendered(), as: UTF8.self)
        let boundary = try #require(text.range(of: "boundary=\"").map { text[$0.upperBound...].prefix { $0 != "\"" } })
        let parts = text.components(separatedBy: "--\(boundary)")
        #expect(parts.count == 4)  // preamble, text, html, closing "--"
        #expect(parts[1].contains("Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nGr=C3=BC=C3=9Fe"))
        #expect(
            parts[2].contains("Content-Type: text/html; charset=UTF-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<p>Gr=C3=BC=C3=9Fe</p>"))
        #expect(parts[3].hasPrefix("--\r\n"))
        // The boundary cannot appear inside quoted-printable content.
        #expect(boundary.hasPrefix("=_"))
    }

    @Test func textOnlyMessageIsSinglePart() throws {
        let text = String(decoding: try message(html: nil).rendered(), as: UTF8.self)
        #expect(text.contains("Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nHello\r\nworld\r\n"))
        #expect(!text.contains("multipart"))
    }

    @Test func nonASCIISubjectAndNameUseEncodedWords() throws {
        let subject = "Ihr Code für „Pro“ – 🎟️ " + String(repeating: "é", count: 40)
        let head = headers(try message(subject: subject, toName: "Zoë Ünal").rendered())
        #expect(head.contains("To: =?UTF-8?B?\(Data("Zoë Ünal".utf8).base64EncodedString())?= <jane@example.com>"))
        let subjectHeader = try #require(head.components(separatedBy: "\r\nMessage-ID:").first?.components(separatedBy: "Subject: ").last)
        let words = subjectHeader.components(separatedBy: "\r\n ")
        #expect(words.count > 1)  // folded over several lines
        var decoded: [UInt8] = []
        for word in words {
            #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
            #expect(word.count <= 75)
            let payload = String(word.dropFirst(10).dropLast(2))
            let bytes = try #require(Data(base64Encoded: payload))
            // Each word decodes to whole characters on its own.
            #expect(String(validating: Array(bytes), as: UTF8.self) != nil)
            decoded += bytes
        }
        #expect(String(decoding: decoded, as: UTF8.self) == subject)
    }

    @Test func asciiDisplayNameIsQuotedAndEscaped() throws {
        let head = headers(try message(toName: "Jane \"JD\" Doe, Esq.").rendered())
        #expect(head.contains("To: \"Jane \\\"JD\\\" Doe, Esq.\" <jane@example.com>"))
    }

    @Test func quotedPrintableEncodesEqualsTrailingWhitespaceAndLongLines() {
        func qp(_ text: String) -> String { String(decoding: QuotedPrintable.encode(text), as: UTF8.self) }
        #expect(qp("a=b") == "a=3Db")
        #expect(qp("trailing space \nand tab\t\r\nend") == "trailing space=20\r\nand tab=09\r\nend")
        #expect(qp("é") == "=C3=A9")
        #expect(qp("mid space ok") == "mid space ok")
        #expect(qp("a\rb") == "a\r\nb")

        let long = String(repeating: "x", count: 200)
        let encoded = qp(long)
        let lines = encoded.components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.count <= 76 })
        #expect(lines.dropLast().allSatisfy { $0.hasSuffix("=") })
        #expect(encoded.replacingOccurrences(of: "=\r\n", with: "") == long)

        // An escape is never split by a soft break.
        let accents = String(repeating: "é", count: 60)
        let accentLines = qp(accents).components(separatedBy: "\r\n")
        #expect(accentLines.allSatisfy { $0.count <= 76 })
        #expect(decodeQP(qp(accents)) == Array(accents.utf8))
        let mixed = "Price = 10 € \t  \nnext line with = and spaces at the end   "
        #expect(decodeQP(qp(mixed)) == Array(mixed.replacingOccurrences(of: "\n", with: "\r\n").utf8))
    }

    @Test func dotStuffingDoublesLeadingDotsAndTerminates() {
        let payload = SMTPSession.dotStuffed(Array("Hello\r\n.hidden\n..two\r\nend.\r\n.\r\n".utf8))
        #expect(String(decoding: payload, as: UTF8.self) == "Hello\r\n..hidden\r\n...two\r\nend.\r\n..\r\n.\r\n")
        #expect(String(decoding: SMTPSession.dotStuffed(Array("no final newline".utf8)), as: UTF8.self) == "no final newline\r\n.\r\n")
    }

    /// Finding 8: the mailer refuses exactly what the edge refuses (`EmailAddressRule`), and takes what it takes.
    @Test(arguments: ["a>,<evil@attacker.com", #""q"@example.com"#, "ünï@exämple.com"])
    func addressesTheEdgeRefusesAreRefusedHere(address: String) {
        #expect(throws: MailError.self) { try MailAddress(address) }
        #expect(EmailAddressRule.normalized(address) == nil)
    }

    @Test func lineBreaksInHeadersAreRefused() throws {
        #expect(throws: MailError.self) { try message(subject: "Hi\r\nBcc: victim@example.com").rendered() }
        #expect(throws: MailError.self) { try message(subject: "Hi\nthere").rendered() }
        #expect(throws: MailError.self) { try MailAddress("jane@example.com\r\nBcc: x@example.com") }
        #expect(throws: MailError.self) { try MailAddress("jane@example.com", displayName: "Jane\nBcc: x@example.com") }
        #expect(throws: MailError.self) { try MailAddress("jane@example.com", displayName: "Jane\r") }
        do {
            _ = try message(subject: "a\rb").rendered()
            Issue.record("a CR in the subject was accepted")
        } catch let error as MailError {
            #expect(error.isPermanent)
            #expect(error.message.contains("line break"))
        }
    }

    @Test func malformedAddressesAreRefused() {
        for bad in [
            "", "jane", "@example.com", "jane@", "ja ne@example.com", "<jane@example.com>", "jane@exa@mple.com",
            "jané@example.com", String(repeating: "a", count: 250) + "@example.com"
        ] {
            #expect(throws: MailError.self, "\(bad)") { try MailAddress(bad) }
        }
        #expect(EmailMask.mask("jane@example.com") == "j\u{2022}\u{2022}\u{2022}@e\u{2022}\u{2022}\u{2022}.com")
        #expect((try? MailAddress("jane@example.com"))?.masked == EmailMask.mask("jane@example.com"))
    }

    @Test func replyParserReadsMultiLineRepliesAndRejectsGarbage() throws {
        var parser = SMTPReplyParser()
        var buffer = Array("250-mail.test greets you\r\n250-STARTTLS\r\n".utf8)
        #expect(try parser.parse(&buffer) == nil)
        buffer += Array("250 AUTH PLAIN LOGIN\r\n354 next".utf8)
        let reply = try #require(try parser.parse(&buffer))
        #expect(reply.code == 250)
        #expect(reply.lines == ["mail.test greets you", "STARTTLS", "AUTH PLAIN LOGIN"])
        #expect(buffer == Array("354 next".utf8))

        var bad = SMTPReplyParser()
        var garbage = Array("hello there\r\n".utf8)
        #expect(throws: MailError.self) { try bad.parse(&garbage) }
        var mixed = SMTPReplyParser()
        var changing = Array("250-a\r\n251 b\r\n".utf8)
        #expect(throws: MailError.self) { try mixed.parse(&changing) }
        var long = SMTPReplyParser()
        var endless = [UInt8](repeating: UInt8(ascii: "2"), count: 5000)
        #expect(throws: MailError.self) { try long.parse(&endless) }
    }
}

/// Decodes quoted-printable (for round-trip checks).
func decodeQP(_ text: String) -> [UInt8] {
    let bytes = Array(text.utf8)
    var output: [UInt8] = []
    var index = 0
    while index < bytes.count {
        if bytes[index] == UInt8(ascii: "="), index + 2 < bytes.count, bytes[index + 1] == 13, bytes[index + 2] == 10 {
            index += 3
        } else if bytes[index] == UInt8(ascii: "="), index + 2 < bytes.count,
            let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
        {
            output.append(value)
            index += 3
        } else {
            output.append(bytes[index])
            index += 1
        }
    }
    return output
}
