import Dispatch
import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A fake server on loopback that plays back fixed bytes, for what a real PostgreSQL never sends
/// (hostile or broken servers). It accepts one connection, answers an SSLRequest with
/// `sslAnswer`, reads the StartupMessage, writes `script`, then reads until the client closes.
final class ScriptedServer: Sendable {
    let port: Int
    private let listener: Int32

    init(sslAnswer: [UInt8] = Array("N".utf8), script: [UInt8]) throws {
        let loopback = try LoopbackListener.tcp(backlog: 1)
        listener = loopback.fd
        port = loopback.port
        DispatchQueue(label: "scripted-postgres").async { [listener] in
            Self.serve(listener, sslAnswer: sslAnswer, script: script)
        }
    }

    deinit { close(listener) }

    private static func serve(_ listener: Int32, sslAnswer: [UInt8], script: [UInt8]) {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return }
        defer { close(client) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard var packet = readPacket(client) else { return }
        if packet.count == 8, packet[4...] == [0x04, 0xD2, 0x16, 0x2F] {  // SSLRequest 80877103
            write(client, sslAnswer)
            if sslAnswer != Array("N".utf8) { drain(client); return }
            guard let startup = readPacket(client) else { return }
            packet = startup
        }
        write(client, script)
        drain(client)
    }

    /// A length-prefixed packet without a type byte (SSLRequest, StartupMessage).
    private static func readPacket(_ fd: Int32) -> [UInt8]? {
        guard let header = readExactly(fd, 4) else { return nil }
        let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        guard length >= 4, length < 10_000, let body = readExactly(fd, length - 4) else { return nil }
        return header + body
    }

    private static func readExactly(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let read = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + offset, count - offset, 0) }
            guard read > 0 else { return nil }
            offset += read
        }
        return bytes
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    private static func drain(_ fd: Int32) {
        var sink = [UInt8](repeating: 0, count: 4096)
        while sink.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) > 0 {}
    }
}

/// A backend message: type byte, Int32 length, body.
func backendMessage(_ type: Character, _ body: [UInt8] = []) -> [UInt8] {
    [type.asciiValue!] + int32Bytes(Int32(body.count + 4)) + body
}

func int32Bytes(_ value: Int32) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

/// AuthenticationSASL listing `mechanisms`.
func saslRequest(_ mechanisms: [String]) -> [UInt8] {
    backendMessage("R", int32Bytes(10) + mechanisms.flatMap { Array($0.utf8) + [0] } + [0])
}

/// AuthenticationOk, then ReadyForQuery (idle).
let authenticationOkAndReady = backendMessage("R", int32Bytes(0)) + backendMessage("Z", Array("I".utf8))
