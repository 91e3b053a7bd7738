internal import Glibc

extension HTTPRequestParser {
    /// Where the body decoder is. `scanned` counts bytes of the current line already searched for LF.
    enum BodyState: Equatable {
        case none
        case fixed(remaining: Int)
        case chunkSize(scanned: Int)
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(scanned: Int)
    }

    /// Prepares to read the body of `head` under `limit` bytes.
    /// - Throws: `HTTPParseError` 413 when the declared Content-Length is over the limit.
    mutating func beginBody(for head: HTTPRequestHead, limit: Int) throws(HTTPParseError) {
        body = []
        bodyLimit = limit
        bodyTotal = 0
        trailerLines = 0
        trailerBytes = 0
        if head.isChunked {
            bodyState = .chunkSize(scanned: 0)
        } else if let length = head.contentLength, length > 0 {
            guard length <= limit else { throw Self.bodyTooLarge(limit) }
            // Reserve modestly: a declared length is a promise, not bytes on hand.
            body.reserveCapacity(min(length, 64 * 1024))
            bodyState = .fixed(remaining: length)
        } else {
            bodyState = .none
        }
    }

    static func bodyTooLarge(_ limit: Int) -> HTTPParseError {
        HTTPParseError(.payloadTooLarge, "Request body larger than \(limit) bytes.")
    }

    /// Consumes body bytes from `buffer`; returns the complete body once it has all arrived.
    /// - Throws: `HTTPParseError` 400 for malformed chunked framing, 413 over the limit, 431
    ///   for oversized trailers.
    mutating func parseBody(_ buffer: inout ByteBuffer) throws(HTTPParseError) -> [UInt8]? {
        while true {
            switch bodyState {
            case .none:
                return takeBody()
            case .fixed(let remaining):
                let count = min(remaining, buffer.readableBytes)
                guard count > 0 else { return nil }
                copyBody(from: &buffer, count: count)
                if remaining == count { return takeBody() }
                bodyState = .fixed(remaining: remaining - count)
            case .chunkSize(let scanned):
                guard let line = try nextLine(in: &buffer, scanned: scanned, limit: limits.maxHeaderLineBytes) else {
                    bodyState = .chunkSize(scanned: buffer.readableBytes)
                    return nil
                }
                let size = try Self.parseChunkSize(line)
                if size == 0 {
                    bodyState = .trailers(scanned: 0)
                } else {
                    let (total, overflow) = bodyTotal.addingReportingOverflow(size)
                    guard !overflow, total <= bodyLimit else { throw Self.bodyTooLarge(bodyLimit) }
                    bodyTotal = total
                    bodyState = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let count = min(remaining, buffer.readableBytes)
                guard count > 0 else { return nil }
                copyBody(from: &buffer, count: count)
                bodyState = remaining == count ? .chunkDataEnd : .chunkData(remaining: remaining - count)
            case .chunkDataEnd:
                let available = buffer.readableBytes
                guard available > 0 else { return nil }
                let ok = try buffer.withUnsafeReadableBytes { bytes throws(HTTPParseError) in
                    bytes[0] == HTTPSyntax.cr && (bytes.count < 2 || bytes[1] == HTTPSyntax.lf)
                }
                guard ok else { throw .badRequest("Chunk data not followed by CRLF.") }
                guard available >= 2 else { return nil }
                buffer.moveReaderIndex(by: 2)
                bodyState = .chunkSize(scanned: 0)
            case .trailers(let scanned):
                guard let line = try nextLine(in: &buffer, scanned: scanned, limit: limits.maxHeaderLineBytes) else {
                    bodyState = .trailers(scanned: buffer.readableBytes)
                    return nil
                }
                if line.isEmpty { return takeBody() }
                trailerLines += 1
                trailerBytes += line.count + 2
                guard trailerLines <= limits.maxHeaderCount, trailerBytes <= limits.maxHeaderBytes else {
                    throw HTTPParseError(.requestHeaderFieldsTooLarge, "Chunked trailer section too large.")
                }
                bodyState = .trailers(scanned: 0)
            }
        }
    }

    private mutating func takeBody() -> [UInt8] {
        bodyState = .none
        let result = body
        body = []
        return result
    }

    private mutating func copyBody(from buffer: inout ByteBuffer, count: Int) {
        try? buffer.withUnsafeReadableBytes { bytes throws(HTTPParseError) in
            body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[0..<count]))
        }
        buffer.moveReaderIndex(by: count)
    }

    /// The next CRLF-terminated line (without CRLF), consumed from `buffer`; nil when it has not
    /// fully arrived. `scanned` bytes were already searched for LF on an earlier call.
    private func nextLine(in buffer: inout ByteBuffer, scanned: Int, limit: Int) throws(HTTPParseError) -> [UInt8]? {
        let found: (line: [UInt8], length: Int)? = try buffer.withUnsafeReadableBytes { bytes throws(HTTPParseError) in
            guard let base = bytes.baseAddress, scanned < bytes.count,
                let hit = memchr(base + scanned, Int32(HTTPSyntax.lf), bytes.count - scanned)
            else {
                if bytes.count > limit + 1 { throw .badRequest("Chunk-size or trailer line too long.") }
                return nil
            }
            let lf = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
            guard lf > 0, bytes[lf - 1] == HTTPSyntax.cr else {
                throw .badRequest("Bare LF in chunked body; lines must end with CRLF.")
            }
            guard lf - 1 <= limit else { throw .badRequest("Chunk-size or trailer line too long.") }
            return (Array(UnsafeBufferPointer(rebasing: bytes[0..<(lf - 1)])), lf + 1)
        }
        guard let found else { return nil }
        buffer.moveReaderIndex(by: found.length)
        return found.line
    }

    /// `chunk-size [ BWS ";" chunk-ext ]`; extensions are ignored.
    private static func parseChunkSize(_ line: [UInt8]) throws(HTTPParseError) -> Int {
        var size = 0
        var index = 0
        while index < line.count, let digit = hexValue(line[index]) {
            guard size <= (Int.max >> 4) else { throw .badRequest("Chunk size too large.") }
            size = size << 4 | digit
            index += 1
        }
        guard index > 0 else { throw .badRequest("Invalid chunk size.") }
        while index < line.count, HTTPSyntax.isWhitespace(line[index]) { index += 1 }
        guard index == line.count || line[index] == UInt8(ascii: ";") else {
            throw .badRequest("Invalid chunk size.")
        }
        for byte in line[index...] where !HTTPSyntax.isFieldValueChar(byte) {
            throw .badRequest("Invalid character in a chunk extension.")
        }
        return size
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }
}
