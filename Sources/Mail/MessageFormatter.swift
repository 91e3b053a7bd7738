import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a `MailMessage` as RFC 5322 bytes: headers (Date, From, To, Subject, Message-ID,
/// MIME-Version, Content-Type) and a quoted-printable UTF-8 body, `multipart/alternative`
/// (text first, then HTML) when there is an HTML body. Every line ends with CRLF and is at most
/// 78 characters in the headers and 76 in the body; a line break in any header value is refused.
enum MessageFormatter {
    /// - Throws: `MailError` (permanent) for a line break in a header value.
    static func format(_ message: MailMessage) throws -> [UInt8] {
        try refuseLineBreaks(message.subject, field: "subject")
        try refuseLineBreaks(message.messageID, field: "Message-ID")
        guard message.messageID.hasPrefix("<"), message.messageID.hasSuffix(">"), message.messageID.contains("@"),
            EncodedWord.isPlainASCII(message.messageID), !message.messageID.contains(" ")
        else {
            throw MailError.permanent("invalid Message-ID (expected <id@domain>)")
        }
        var headers: [String] = [
            "Date: " + rfc5322Date(message.date),
            "From: " + addressHeader(message.from),
            "To: " + addressHeader(message.to),
            "Subject: " + EncodedWord.unstructured(message.subject, headerName: "Subject"),
            "Message-ID: " + message.messageID,
            "MIME-Version: 1.0"
        ]
        if let unsubscribe = message.listUnsubscribe {
            try refuseLineBreaks(unsubscribe, field: "List-Unsubscribe URL")
            guard unsubscribe.hasPrefix("https://") || unsubscribe.hasPrefix("http://"), EncodedWord.isPlainASCII(unsubscribe),
                !unsubscribe.contains(" "), !unsubscribe.contains(">")
            else {
                throw MailError.permanent("invalid List-Unsubscribe URL (expected an http(s) URL)")
            }
            // RFC 8058; a long URL is folded onto a line of its own (header lines stay short).
            let line = "List-Unsubscribe: <\(unsubscribe)>"
            headers.append(line.utf8.count <= 78 ? line : "List-Unsubscribe:\r\n <\(unsubscribe)>")
            headers.append("List-Unsubscribe-Post: List-Unsubscribe=One-Click")
        }
        var body: [UInt8] = []
        if let html = message.htmlBody {
            let boundary = self.boundary(for: message.messageID)
            headers.append("Content-Type: multipart/alternative;\r\n boundary=\"\(boundary)\"")
            body += Array("This is a multi-part message in MIME format.\r\n\r\n--\(boundary)\r\n".utf8)
            body += part("text/plain", message.textBody)
            body += Array("\r\n--\(boundary)\r\n".utf8)
            body += part("text/html", html)
            body += Array("\r\n--\(boundary)--\r\n".utf8)
        } else {
            headers.append("Content-Type: text/plain; charset=UTF-8")
            headers.append("Content-Transfer-Encoding: quoted-printable")
            body += QuotedPrintable.encode(message.textBody)
            body += [13, 10]
        }
        var output: [UInt8] = []
        output.reserveCapacity(body.count + 512)
        for header in headers {
            output += Array(header.utf8)
            output += [13, 10]
        }
        output += [13, 10]
        output += body
        return output
    }

    private static func part(_ type: String, _ text: String) -> [UInt8] {
        Array("Content-Type: \(type); charset=UTF-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n".utf8)
            + QuotedPrintable.encode(text)
    }

    /// `"Name" <address>`, `=?UTF-8?B?...?= <address>` or `<address>`; `MailAddress` has already
    /// refused line breaks and malformed addresses.
    static func addressHeader(_ address: MailAddress) -> String {
        guard let name = address.displayName else { return "<\(address.address)>" }
        return EncodedWord.displayName(name) + " <\(address.address)>"
    }

    /// A boundary that cannot occur in quoted-printable text (`=_` is never a valid QP escape)
    /// and is the same for every attempt at one outbox row.
    static func boundary(for messageID: String) -> String {
        let token = messageID.unicodeScalars.filter { ($0.properties.isASCIIHexDigit) || ($0 >= "a" && $0 <= "z") }
        return "=_tollgate_" + String(String.UnicodeScalarView(token.prefix(40)))
    }

    private static func refuseLineBreaks(_ value: String, field: String) throws {
        if value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) {
            throw MailError.permanent("header injection refused: the \(field) contains a line break")
        }
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Tue, 01 Jul 2025 12:00:00 +0000` (RFC 5322 §3.3), in UTC, without Foundation formatters.
    static func rfc5322Date(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let weekday = weekdays[Int(parts.tm_wday) % 7]
        let month = months[Int(parts.tm_mon) % 12]
        return "\(weekday), \(two(parts.tm_mday)) \(month) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) +0000"
    }
}
