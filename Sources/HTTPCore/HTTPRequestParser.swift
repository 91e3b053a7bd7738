internal import Glibc

/// An incremental HTTP/1.1 request parser (RFC 9112) working over a `ByteBuffer`.
///
/// It remembers how far it has scanned, so feeding a head one byte at a time costs linear
/// time overall. Limits are enforced while bytes arrive, before a line is complete, so an
/// oversized line is rejected without buffering it. Every error carries the status to send.
struct HTTPRequestParser {
    /// Size limits, taken from `HTTPServerConfiguration`.
    struct Limits: Sendable {
        var maxRequestLineBytes: Int
        var maxHeaderLineBytes: Int
        var maxHeaderBytes: Int
        var maxHeaderCount: Int

        init(_ configuration: HTTPServerConfiguration) {
            maxRequestLineBytes = configuration.maxRequestLineBytes
            maxHeaderLineBytes = configuration.maxHeaderLineBytes
            maxHeaderBytes = configuration.maxHeaderBytes
            maxHeaderCount = configuration.maxHeaderCount
        }
    }

    let limits: Limits

    // Head state; offsets are relative to the buffer's reader index.
    /// Bytes of the unread region already searched for LF.
    private var scanned = 0
    /// Where the line being assembled starts.
    private var lineStart = 0
    private var requestLine: (method: HTTPMethod, target: String, minorVersion: Int)?
    private var fields: [(name: String, value: String)] = []
    private var headerBytes = 0
    private var hostCount = 0
    private var contentLength: Int?
    private var transferEncoding: String?
    private var connectionClose = false
    private var connectionKeepAlive = false
    private var expectsContinue = false
    private var requestId: String?

    // Body state (see HTTPRequestParser+Body.swift).
    var bodyState: BodyState = .none
    var body: [UInt8] = []
    var bodyLimit = 0
    var bodyTotal = 0
    var trailerLines = 0
    var trailerBytes = 0

    init(limits: Limits) {
        self.limits = limits
    }

    /// Parses as much of a request head as `buffer` holds. Returns the head and consumes its
    /// bytes once the empty line ending it has arrived; returns nil when more bytes are needed.
    /// - Throws: `HTTPParseError` with 400, 414, 431, 501 or 505 when the head is unacceptable.
    mutating func parseHead(_ buffer: inout ByteBuffer) throws(HTTPParseError) -> HTTPRequestHead? {
        let consumed: Int? = try buffer.withUnsafeReadableBytes { bytes throws(HTTPParseError) in
            try scanHead(bytes)
        }
        guard let consumed else { return nil }
        let head = try finishHead()
        resetHead()
        buffer.moveReaderIndex(by: consumed)
        return head
    }

    /// Scans complete lines; returns the head length once the final empty line is seen.
    private mutating func scanHead(_ bytes: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        while true {
            let available = bytes.count
            guard scanned < available,
                let found = memchr(base + scanned, Int32(HTTPSyntax.lf), available - scanned)
            else {
                scanned = available
                try checkOpenLine(length: available - lineStart)
                return nil
            }
            let lf = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
            guard lf > lineStart, bytes[lf - 1] == HTTPSyntax.cr else {
                throw .badRequest("Bare LF in request head; lines must end with CRLF.")
            }
            let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<(lf - 1)])
            scanned = lf + 1
            if requestLine == nil {
                if line.isEmpty {
                    // RFC 9112 §2.2: ignore empty lines before the request line, within reason.
                    guard scanned <= limits.maxRequestLineBytes else {
                        throw .badRequest("Too many empty lines before the request line.")
                    }
                } else {
                    guard line.count <= limits.maxRequestLineBytes else { throw Self.requestLineTooLong }
                    requestLine = try Self.parseRequestLine(line)
                }
            } else if line.isEmpty {
                return scanned
            } else {
                guard line.count <= limits.maxHeaderLineBytes else { throw Self.headerLineTooLong }
                headerBytes += line.count + 2
                guard headerBytes <= limits.maxHeaderBytes else { throw Self.headersTooLarge }
                guard fields.count < limits.maxHeaderCount else {
                    throw HTTPParseError(.requestHeaderFieldsTooLarge, "More than \(limits.maxHeaderCount) header fields.")
                }
                try parseField(line)
            }
            lineStart = scanned
        }
    }

    /// Rejects a line still being received once it is already over its limit.
    private func checkOpenLine(length: Int) throws(HTTPParseError) {
        // The open segment may end with the CR of its CRLF, hence the +1.
        if requestLine == nil {
            if length > limits.maxRequestLineBytes + 1 { throw Self.requestLineTooLong }
        } else {
            if length > limits.maxHeaderLineBytes + 1 { throw Self.headerLineTooLong }
            if headerBytes + length > limits.maxHeaderBytes + 1 { throw Self.headersTooLarge }
        }
    }

    private static let requestLineTooLong = HTTPParseError(.uriTooLong, "Request line too long.")
    private static let headerLineTooLong = HTTPParseError(.requestHeaderFieldsTooLarge, "Header field too long.")
    private static let headersTooLarge = HTTPParseError(.requestHeaderFieldsTooLarge, "Header section too large.")

    /// `method SP request-target SP HTTP-version`, single spaces only.
    private static func parseRequestLine(
        _ line: UnsafeBufferPointer<UInt8>
    ) throws(HTTPParseError) -> (method: HTTPMethod, target: String, minorVersion: Int) {
        var index = 0
        while index < line.count, HTTPSyntax.isTokenChar(line[index]) { index += 1 }
        guard index > 0, index < line.count, line[index] == HTTPSyntax.space else {
            throw .badRequest("Invalid method in request line.")
        }
        let method = HTTPMethod(rawValue: HTTPSyntax.string(UnsafeBufferPointer(rebasing: line[0..<index])))
        let targetStart = index + 1
        index = targetStart
        while index < line.count, HTTPSyntax.isTargetChar(line[index]) { index += 1 }
        guard index > targetStart, index < line.count, line[index] == HTTPSyntax.space else {
            throw .badRequest("Invalid request target.")
        }
        let target = UnsafeBufferPointer(rebasing: line[targetStart..<index])
        if target[0] != UInt8(ascii: "/") {
            guard target.count == 1, target[0] == UInt8(ascii: "*"), method == .options else {
                throw .badRequest("The request target must be an absolute path.")
            }
        }
        let version = UnsafeBufferPointer(rebasing: line[(index + 1)...])
        guard version.count == 8, version[0] == UInt8(ascii: "H"), version[1] == UInt8(ascii: "T"),
            version[2] == UInt8(ascii: "T"), version[3] == UInt8(ascii: "P"), version[4] == UInt8(ascii: "/"),
            version[6] == UInt8(ascii: "."), isDigit(version[5]), isDigit(version[7])
        else {
            throw .badRequest("Invalid HTTP version in request line.")
        }
        guard version[5] == UInt8(ascii: "1"), version[7] <= UInt8(ascii: "1") else {
            throw HTTPParseError(.httpVersionNotSupported, "Only HTTP/1.1 and HTTP/1.0 are supported.")
        }
        return (method, HTTPSyntax.string(target), Int(version[7] - UInt8(ascii: "0")))
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// `field-name ":" OWS field-value OWS`; records the fields the server itself interprets.
    private mutating func parseField(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) {
        guard !HTTPSyntax.isWhitespace(line[0]) else {
            throw .badRequest("Folded header lines (obs-fold) are not accepted.")
        }
        var colon = 0
        while colon < line.count, HTTPSyntax.isTokenChar(line[colon]) { colon += 1 }
        guard colon < line.count, line[colon] == HTTPSyntax.colon else {
            if colon < line.count, HTTPSyntax.isWhitespace(line[colon]) {
                throw .badRequest("Whitespace between a header name and its colon.")
            }
            throw .badRequest("Invalid header name.")
        }
        guard colon > 0 else { throw .badRequest("Empty header name.") }
        let name = UnsafeBufferPointer(rebasing: line[0..<colon])
        let value = HTTPSyntax.trimmed(UnsafeBufferPointer(rebasing: line[(colon + 1)...]))
        for byte in value where !HTTPSyntax.isFieldValueChar(byte) {
            throw .badRequest("Invalid character in a header value.")
        }
        let valueString = HTTPSyntax.string(value)
        try interpret(name: name, value: value, valueString: valueString)
        // Room for a usual request's fields at once (growing from one took four allocations).
        if fields.isEmpty { fields.reserveCapacity(12) }
        fields.append((name: HTTPSyntax.string(name), value: valueString))
    }

    private mutating func interpret(
        name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, valueString: String
    ) throws(HTTPParseError) {
        switch name.count {
        case 4 where HTTPSyntax.equalsIgnoringCase(name, "host"):
            hostCount += 1
        case 6 where HTTPSyntax.equalsIgnoringCase(name, "expect"):
            if HTTPSyntax.equalsIgnoringCase(value, "100-continue") { expectsContinue = true }
        case 10 where HTTPSyntax.equalsIgnoringCase(name, "connection"):
            try HTTPSyntax.forEachListElement(value) { token throws(HTTPParseError) in
                if HTTPSyntax.equalsIgnoringCase(token, "close") { connectionClose = true }
                if HTTPSyntax.equalsIgnoringCase(token, "keep-alive") { connectionKeepAlive = true }
            }
        case 12 where HTTPSyntax.equalsIgnoringCase(name, "x-request-id"):
            if requestId == nil { requestId = valueString }
        case 14 where HTTPSyntax.equalsIgnoringCase(name, "content-length"):
            // A repeated field is a smuggling vector even with equal values; a list within
            // one field is tolerated only when every element is the same (RFC 9112 §6.3).
            guard contentLength == nil else { throw .badRequest("Duplicate Content-Length header.") }
            var listed: Int?
            try HTTPSyntax.forEachListElement(value) { element throws(HTTPParseError) in
                let length = try Self.parseContentLength(element)
                if let existing = listed, existing != length {
                    throw .badRequest("Conflicting Content-Length values.")
                }
                listed = length
            }
            contentLength = listed
        case 17 where HTTPSyntax.equalsIgnoringCase(name, "transfer-encoding"):
            guard transferEncoding == nil else {
                throw HTTPParseError(.notImplemented, "Only a single Transfer-Encoding: chunked is supported.")
            }
            transferEncoding = valueString
        default:
            break
        }
    }

    private static func parseContentLength(_ digits: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> Int {
        guard !digits.isEmpty else { throw .badRequest("Empty Content-Length.") }
        var result = 0
        for byte in digits {
            guard isDigit(byte) else { throw .badRequest("Content-Length is not a non-negative integer.") }
            let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw .badRequest("Content-Length is too large.") }
            result = sum
        }
        return result
    }

    /// Applies the whole-head rules (Host, framing, keep-alive) and builds the head.
    private func finishHead() throws(HTTPParseError) -> HTTPRequestHead {
        guard let requestLine else { throw .badRequest("Missing request line.") }
        let minor = requestLine.minorVersion
        if minor == 1 {
            guard hostCount > 0 else { throw .badRequest("HTTP/1.1 requests need a Host header.") }
        }
        guard hostCount <= 1 else { throw .badRequest("More than one Host header.") }
        var isChunked = false
        if let transferEncoding {
            guard contentLength == nil else {
                throw .badRequest("Content-Length together with Transfer-Encoding is not allowed.")
            }
            guard minor == 1 else { throw .badRequest("Transfer-Encoding is not allowed in HTTP/1.0.") }
            guard HTTPHeaders.equalsIgnoringCase(transferEncoding, "chunked") else {
                throw HTTPParseError(.notImplemented, "Only Transfer-Encoding: chunked is supported.")
            }
            isChunked = true
        }
        let keepAlive = minor == 1 ? !connectionClose : (connectionKeepAlive && !connectionClose)
        return HTTPRequestHead(
            method: requestLine.method, target: requestLine.target, minorVersion: minor,
            headers: HTTPHeaders(fields), contentLength: contentLength, isChunked: isChunked,
            expectsContinue: expectsContinue && minor == 1, keepAlive: keepAlive, requestId: requestId
        )
    }

    private mutating func resetHead() {
        scanned = 0
        lineStart = 0
        requestLine = nil
        fields = []
        headerBytes = 0
        hostCount = 0
        contentLength = nil
        transferEncoding = nil
        connectionClose = false
        connectionKeepAlive = false
        expectsContinue = false
        requestId = nil
    }
}
