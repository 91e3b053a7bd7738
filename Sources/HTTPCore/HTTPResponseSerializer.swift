import ByteScan

/// Turns an `HTTPResponse` into its head's wire bytes, adding the fields the server owns:
/// `Content-Length` (none for 1xx/204/304), `Date`, `Connection` and `X-Request-Id`. The body is
/// never copied behind the head: the connection sends both buffers with one `sendmsg`, so the
/// head's buffer stays small (a body of a kilobyte or more copied into it made it a large
/// allocation, which makes glibc's allocator consolidate its free lists, on every answer).
enum HTTPResponseSerializer {
    /// The head, plus whether `response.body` follows it on the wire (false for HEAD and for the
    /// statuses without a body).
    static func serialize(
        _ response: HTTPResponse, requestId: String, keepAlive: Bool, minorVersion: Int,
        isHeadRequest: Bool, date: [UInt8]
    ) -> (head: [UInt8], sendsBody: Bool) {
        let code = response.status.code
        let bodyAllowed = !(code < 200 || code == 204 || code == 304)
        var out: [UInt8] = []
        out.reserveCapacity(192 + (response.headers.prepared?.lines.count ?? response.headers.count * 48))
        appendLiteral("HTTP/1.1 ", to: &out)
        appendDecimal(max(0, min(code, 999)), to: &out)
        out.append(UInt8(ascii: " "))
        appendSafe(response.status.reasonPhrase, to: &out)
        appendLiteral("\r\n", to: &out)
        let appContentLength: String?
        if let prepared = response.headers.prepared {
            out.append(contentsOf: prepared.lines)
            appContentLength = prepared.declaredContentLength
        } else {
            appContentLength = appendFields(response.headers, to: &out)
        }
        if bodyAllowed {
            appendLiteral("Content-Length: ", to: &out)
            // A HEAD response may carry the length the GET would have when the handler set it.
            if isHeadRequest, response.body.isEmpty, let declared = appContentLength,
                !declared.isEmpty, declared.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            {
                out.append(contentsOf: declared.utf8)
            } else {
                appendDecimal(response.body.count, to: &out)
            }
            appendLiteral("\r\n", to: &out)
        }
        appendLiteral("Date: ", to: &out)
        out.append(contentsOf: date)
        appendLiteral("\r\nX-Request-Id: ", to: &out)
        out.append(contentsOf: requestId.utf8)
        if !keepAlive {
            appendLiteral("\r\nConnection: close", to: &out)
        } else if minorVersion == 0 {
            appendLiteral("\r\nConnection: keep-alive", to: &out)
        }
        appendLiteral("\r\n\r\n", to: &out)
        return (out, bodyAllowed && !isHeadRequest && !response.body.isEmpty)
    }

    /// Appends the handler's fields, one line each: those the server owns (`Content-Length`,
    /// `Date`, `Connection`, `X-Request-Id`, `Transfer-Encoding`) are left out, and so is a field
    /// with CR, LF or NUL, whole. Returns the `Content-Length` the fields declare.
    static func appendFields(_ headers: HTTPHeaders, to out: inout [UInt8]) -> String? {
        var declaredContentLength: String?
        for field in headers {
            if HTTPHeaders.equalsIgnoringCase(field.name, "Content-Length") {
                declaredContentLength = field.value
                continue
            }
            if isManaged(field.name) { continue }
            // Checked and copied in one pass.
            let start = out.count
            guard appendIfSafe(field.name, to: &out) else { continue }
            appendLiteral(": ", to: &out)
            guard appendIfSafe(field.value, to: &out) else {
                out.removeSubrange(start...)
                continue
            }
            appendLiteral("\r\n", to: &out)
        }
        return declaredContentLength
    }

    /// Whether the response asks for the connection to be closed.
    static func requestsClose(_ response: HTTPResponse) -> Bool {
        if let prepared = response.headers.prepared { return prepared.requestsClose }
        return requestsClose(response.headers)
    }

    static func requestsClose(_ headers: HTTPHeaders) -> Bool {
        for field in headers where HTTPHeaders.equalsIgnoringCase(field.name, "Connection") {
            if field.value.utf8.count == 5, HTTPHeaders.equalsIgnoringCase(field.value, "close") { return true }
            if field.value.lowercased().split(separator: ",").contains(where: { $0.trimmingSpaces == "close" }) {
                return true
            }
        }
        return false
    }

    private static func isManaged(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4: HTTPHeaders.equalsIgnoringCase(name, "Date")
        case 10: HTTPHeaders.equalsIgnoringCase(name, "Connection")
        case 12: HTTPHeaders.equalsIgnoringCase(name, "X-Request-Id")
        case 17: HTTPHeaders.equalsIgnoringCase(name, "Transfer-Encoding")
        default: false
        }
    }

    /// Appends `text` when it holds no CR, LF or NUL (so a handler can never split the
    /// response); false, appending nothing, when it does.
    private static func appendIfSafe(_ text: String, to out: inout [UInt8]) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            // Checked eight bytes at a time; only a text with a control byte (a TAB is allowed)
            // is looked at byte by byte.
            if ByteScan.containsControl(bytes) {
                for byte in bytes where byte == 0x0D || byte == 0x0A || byte == 0 { return false }
            }
            out.append(contentsOf: bytes)
            return true
        }
    }

    private static func appendLiteral(_ text: StaticString, to out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    private static func appendSafe(_ text: String, to out: inout [UInt8]) {
        for byte in text.utf8 where byte != 0x0D && byte != 0x0A && byte != 0 { out.append(byte) }
    }

    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var remaining = value
        withUnsafeMutableBytes(of: &digits) { raw in
            while remaining > 0 {
                raw[count] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
                count += 1
            }
            while count > 0 {
                count -= 1
                out.append(raw[count])
            }
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var result = self
        while result.first == " " || result.first == "\t" { result = result.dropFirst() }
        while result.last == " " || result.last == "\t" { result = result.dropLast() }
        return result
    }
}
