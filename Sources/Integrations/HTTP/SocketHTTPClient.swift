import Crypto
import Dispatch
import Foundation
import Synchronization

/// `OutboundHTTPClient` over plain sockets (and OpenSSL for https), for receivers Tollgate does
/// not control (the app's backend): HTTP/1.1 with keep-alive, redirects never followed (a 3xx
/// is the answer), at most `maxResponseBytes` of a body read (the connection is then dropped),
/// and one deadline over the whole exchange: resolving, connecting, TLS, writing and reading.
///
/// Why not URLSession: on Linux it keeps a CPU busy (about a quarter of a core, measured) for
/// as long as any request waits for its answer, so one slow endpoint would take CPU from every
/// redemption. Here a waiting request is a thread blocked in `recv`, costing nothing.
public final class SocketHTTPClient: OutboundHTTPClient {
    /// Names the receiver in errors (`events`).
    public let service: String
    private let maxResponseBytes: Int
    private let tlsConfiguration: TLSClientConfiguration
    private let idle = Mutex<[String: [IdleConnection]]>([:])

    /// A kept-alive connection waiting in the pool.
    /// `@unchecked Sendable`: a connection is only ever used by the one exchange that took it
    /// out of the pool (under the pool's lock) until it puts it back.
    private struct IdleConnection: @unchecked Sendable {
        let connection: ClientConnection
    }

    /// The most idle connections kept per host.
    static let maxIdlePerHost = 32
    static let maxHeaderBytes = 16_384

    public init(service: String, maxResponseBytes: Int, tlsConfiguration: TLSClientConfiguration = TLSClientConfiguration()) {
        self.service = service
        self.maxResponseBytes = maxResponseBytes
        self.tlsConfiguration = tlsConfiguration
    }

    public func send(_ request: OutboundRequest) async throws -> OutboundResponse {
        // Each exchange blocks its own thread (Dispatch hosts blocking C calls, CONVENTIONS.md): a
        // serial queue of its own is "overcommit", so a thread is found for it however many
        // others wait in recv; a shared concurrent queue stalled at about 4 on 2 cores (measured).
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "tollgate.http-client.exchange").async {
                continuation.resume(with: Result { try self.exchange(request) })
            }
        }
    }

    private func exchange(_ request: OutboundRequest) throws -> OutboundResponse {
        let deadline = ContinuousClock.now + request.timeout
        guard let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { throw UpstreamError(service: service, kind: .invalidResponse, message: "not an absolute http(s) URL") }
        let useTLS = scheme == "https"
        let port = components.port ?? (useTLS ? 443 : 80)
        let key = "\(scheme)://\(host):\(port)"
        let head = Self.head(request, components: components, host: host, port: port, useTLS: useTLS)
        // A kept-alive connection the server closed meanwhile fails before any answer: then one
        // fresh connection is tried (nothing of this request was processed).
        if let pooled = idle.withLock({ $0[key]?.popLast() }) {
            do {
                return try roundTrip(head, request.body, on: pooled.connection, key: key, deadline: deadline)
            } catch let error as UpstreamError where error.kind == .unreachable {
                // Closed or reset: try once on a fresh connection below.
            }
        }
        let fresh = try ClientConnection(
            host: host, port: port, useTLS: useTLS, tlsConfiguration: tlsConfiguration, deadline: deadline, service: service)
        return try roundTrip(head, request.body, on: fresh, key: key, deadline: deadline)
    }

    static func head(_ request: OutboundRequest, components: URLComponents, host: String, port: Int, useTLS: Bool) -> [UInt8] {
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        let defaultPort = port == (useTLS ? 443 : 80)
        let hostHeader = (host.contains(":") ? "[\(host)]" : host) + (defaultPort ? "" : ":\(port)")
        var text = "\(request.method) \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\nContent-Length: \(request.body.count)\r\n"
        for header in request.headers where !["host", "content-length", "connection"].contains(header.name.lowercased()) {
            text += "\(header.name): \(header.value)\r\n"
        }
        return Array((text + "\r\n").utf8)
    }

    /// Sends the request and reads the answer; returns the connection to the pool when the
    /// exchange left it reusable.
    private func roundTrip(_ head: [UInt8], _ body: [UInt8], on connection: ClientConnection, key: String, deadline: ContinuousClock.Instant) throws
        -> OutboundResponse
    {
        connection.buffer.removeAll(keepingCapacity: true)
        try connection.write(head + body, deadline: deadline, service: service)
        var headerEnd: Int?
        while headerEnd == nil {
            guard try connection.fill(deadline: deadline, service: service) else {
                throw UpstreamError(service: service, kind: .unreachable, message: "the connection closed before an answer")
            }
            headerEnd = Self.endOfHeaders(connection.buffer)
            if headerEnd == nil, connection.buffer.count > Self.maxHeaderBytes {
                throw UpstreamError(service: service, kind: .invalidResponse, message: "the answer's headers exceed \(Self.maxHeaderBytes) bytes")
            }
        }
        guard let headerEnd else { throw UpstreamError(service: service, kind: .invalidResponse, message: "no headers") }
        let (status, headers, keepAlive) = try parseHead(Array(connection.buffer[0..<headerEnd]))
        connection.buffer.removeFirst(headerEnd + 4)
        var (responseBody, complete) = try readBody(headers: headers, status: status, on: connection, deadline: deadline)
        if responseBody.count > maxResponseBytes { responseBody = Array(responseBody.prefix(maxResponseBytes)) }
        if keepAlive && complete {
            idle.withLock { pool in
                if pool[key, default: []].count < Self.maxIdlePerHost { pool[key, default: []].append(IdleConnection(connection: connection)) }
            }
        }
        return OutboundResponse(status: status, headers: headers, body: responseBody)
    }

    static func endOfHeaders(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func parseHead(_ bytes: [UInt8]) throws -> (status: Int, headers: [String: String], keepAlive: Bool) {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]), (100...999).contains(status) else {
            throw UpstreamError(service: service, kind: .invalidResponse, message: "not an HTTP/1.x status line")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let connection = headers["connection"]?.lowercased() ?? ""
        let keepAlive = statusParts[0] == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
        return (status, headers, keepAlive)
    }

    /// The body (up to the cap) and whether it was read to its end (the connection is reusable).
    private func readBody(
        headers: [String: String], status: Int, on connection: ClientConnection, deadline: ContinuousClock.Instant
    ) throws -> ([UInt8], Bool) {
        if status == 204 || status == 304 || (100..<200).contains(status) { return ([], true) }
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            return try readChunked(on: connection, deadline: deadline)
        }
        if let lengthText = headers["content-length"] {
            guard let length = Int(lengthText), length >= 0 else {
                throw UpstreamError(service: service, kind: .invalidResponse, message: "a bad Content-Length")
            }
            let wanted = min(length, maxResponseBytes)
            while connection.buffer.count < wanted {
                guard try connection.fill(deadline: deadline, service: service) else { break }
            }
            let complete = length <= maxResponseBytes && connection.buffer.count == length
            return (Array(connection.buffer.prefix(wanted)), complete)
        }
        // Delimited by the end of the connection: read up to the cap, never reuse.
        while connection.buffer.count < maxResponseBytes, try connection.fill(deadline: deadline, service: service) {}
        return (Array(connection.buffer.prefix(maxResponseBytes)), false)
    }

    private func readChunked(on connection: ClientConnection, deadline: ContinuousClock.Instant) throws -> ([UInt8], Bool) {
        var body: [UInt8] = []
        var offset = 0
        func line() throws -> String? {
            while true {
                if let end = connection.buffer[offset...].firstIndex(of: 10) {
                    let text = String(decoding: connection.buffer[offset..<end], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                    offset = end + 1
                    return text
                }
                guard try connection.fill(deadline: deadline, service: service) else { return nil }
            }
        }
        while let sizeLine = try line() {
            guard let size = Int(sizeLine.prefix { $0 != ";" }, radix: 16) else {
                throw UpstreamError(service: service, kind: .invalidResponse, message: "a bad chunk size")
            }
            if size == 0 {
                while let trailer = try line(), !trailer.isEmpty {}
                return (body, connection.buffer.count == offset)
            }
            guard body.count + size <= maxResponseBytes else {
                body += connection.buffer[offset...].prefix(maxResponseBytes - body.count)
                return (body, false)
            }
            while connection.buffer.count < offset + size + 2 {
                guard try connection.fill(deadline: deadline, service: service) else { return (body, false) }
            }
            body += connection.buffer[offset..<(offset + size)]
            offset += size + 2
        }
        return (body, false)
    }
}
