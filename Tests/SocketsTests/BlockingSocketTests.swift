import Sockets
import Testing
import TestSupport

/// `BlockingSocket` against real loopback and Unix-domain listeners. Every blocking call runs
/// off Swift's cooperative pool (`offPool`); the outcomes are asserted after it returns.
@Suite struct BlockingSocketTests {
    @Test("Connects to a listening TCP socket and exchanges bytes both ways")
    func exchange() async throws {
        let listener = try LoopbackListener.tcp()
        defer { listener.close() }
        let (received, answered) = try await offPool { () throws -> (String, String) in
            let socket = try BlockingSocket(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
            try socket.setTimeout(.seconds(5))
            let peer = try listener.accept()
            defer { closeRaw(peer) }
            try socket.write(Array("ping".utf8))
            let received = receiveRaw(peer)
            sendRaw(peer, "pong")
            var buffer: [UInt8] = []
            try socket.read(into: &buffer, count: 16)
            socket.close()
            socket.close()
            return (received, String(decoding: buffer, as: UTF8.self))
        }
        #expect(received == "ping")
        #expect(answered == "pong")
    }

    @Test("A port nobody listens on is refused at once, naming the address")
    func refused() async throws {
        let bound = try LoopbackListener.tcp(listening: false)
        defer { bound.close() }
        let (error, elapsed) = await offPool { () -> (SocketError?, Duration) in
            let started = ContinuousClock.now
            do throws(SocketError) {
                _ = try BlockingSocket(host: "127.0.0.1", port: bound.port, timeout: .seconds(5))
                return (nil, started.duration(to: .now))
            } catch {
                return (error, started.duration(to: .now))
            }
        }
        #expect(error?.kind == .refused, "\(String(describing: error))")
        #expect(error?.message.contains("127.0.0.1:\(bound.port)") == true)
        #expect(elapsed < .seconds(2))
    }

    @Test("A connect the listener never answers (its backlog full) times out after the timeout")
    func connectTimeout() async throws {
        // Backlog 0 holds one connection; Linux then drops further SYNs, so the next connect
        // hangs until its timeout (no network needed, unlike a non-routable address).
        let listener = try LoopbackListener.tcp(backlog: 0)
        defer { listener.close() }
        let outcomes = await offPool { () -> [(SocketError?, Duration)] in
            var held: [BlockingSocket] = []
            var outcomes: [(SocketError?, Duration)] = []
            for useDeadline in [false, true] {
                // Fill the backlog: the first attempts connect, the next one hangs.
                for _ in 0..<4 {
                    let started = ContinuousClock.now
                    do throws(SocketError) {
                        let socket =
                            try useDeadline
                            ? BlockingSocket(host: "127.0.0.1", port: listener.port, deadline: ContinuousClock.now + .milliseconds(200))
                            : BlockingSocket(host: "127.0.0.1", port: listener.port, timeout: .milliseconds(200))
                        held.append(socket)
                    } catch {
                        outcomes.append((error, started.duration(to: .now)))
                        break
                    }
                }
            }
            return outcomes
        }
        #expect(outcomes.count == 2)
        for (error, elapsed) in outcomes {
            #expect(error?.kind == .timeout, "\(String(describing: error))")
            #expect(error?.message.contains("timed out after") == true)
            #expect(elapsed >= .milliseconds(150) && elapsed < .seconds(3), "\(elapsed)")
        }
    }

    @Test("A read from a silent peer times out within bounds")
    func readTimeout() async throws {
        let listener = try LoopbackListener.tcp()
        defer { listener.close() }
        let (error, elapsed) = try await offPool { () throws -> (SocketError?, Duration) in
            let socket = try BlockingSocket(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
            let peer = try listener.accept()
            defer { closeRaw(peer) }
            try socket.setTimeout(.milliseconds(200))
            let started = ContinuousClock.now
            var buffer: [UInt8] = []
            do throws(SocketError) {
                try socket.read(into: &buffer, count: 16)
                return (nil, started.duration(to: .now))
            } catch {
                return (error, started.duration(to: .now))
            }
        }
        #expect(error?.kind == .timeout, "\(String(describing: error))")
        #expect(error?.message.contains("after 200 ms") == true)
        #expect(elapsed >= .milliseconds(150) && elapsed < .seconds(3), "\(elapsed)")
    }

    @Test("The peer closing is .closed on read, and a write after it fails without SIGPIPE")
    func peerClose() async throws {
        let listener = try LoopbackListener.tcp()
        defer { listener.close() }
        let (readError, writeError) = try await offPool { () throws -> (SocketError?, SocketError?) in
            let socket = try BlockingSocket(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
            try socket.setTimeout(.seconds(5))
            closeRaw(try listener.accept())
            var buffer: [UInt8] = []
            var readError: SocketError?
            do throws(SocketError) { try socket.read(into: &buffer, count: 16) } catch { readError = error }
            // The first write may still be taken (the peer answers it with a reset); a later one
            // fails with EPIPE or ECONNRESET, which MSG_NOSIGNAL keeps from killing the process.
            var writeError: SocketError?
            for _ in 0..<100 where writeError == nil {
                do throws(SocketError) { try socket.write(Array(repeating: 0x61, count: 1024)) } catch { writeError = error }
            }
            return (readError, writeError)
        }
        #expect(readError?.kind == .closed, "\(String(describing: readError))")
        #expect(writeError?.kind == .io, "\(String(describing: writeError))")
    }

    @Test("Connects to a Unix-domain socket and exchanges bytes")
    func unixDomain() async throws {
        let listener = try LoopbackListener.unix()
        defer { listener.close() }
        let path = try #require(listener.path)
        let (received, answered, pending) = try await offPool { () throws -> (String, String, Bool) in
            let socket = try BlockingSocket(unixPath: path, timeout: .seconds(5))
            try socket.setTimeout(.seconds(5))
            let peer = try listener.accept()
            defer { closeRaw(peer) }
            try socket.write(Array("hello".utf8))
            let received = receiveRaw(peer)
            sendRaw(peer, "world")
            var buffer: [UInt8] = []
            while buffer.count < 5 { try socket.read(into: &buffer, count: 5 - buffer.count) }
            let pending = socket.hasPendingInput()
            return (received, String(decoding: buffer, as: UTF8.self), pending)
        }
        #expect(received == "hello")
        #expect(answered == "world")
        #expect(pending == false)
    }

    @Test("A missing Unix-domain socket and a path too long are typed errors")
    func unixDomainFailures() async throws {
        let missing = "/tmp/tollgate-no-such-socket-\(UInt32.random(in: 0...UInt32.max))"
        let long = "/tmp/" + String(repeating: "x", count: 200)
        let errors = await offPool { () -> [SocketError?] in
            [missing, long].map { path -> SocketError? in
                do throws(SocketError) {
                    _ = try BlockingSocket(unixPath: path, timeout: .seconds(1))
                    return nil
                } catch {
                    return error
                }
            }
        }
        #expect(errors[0]?.kind == .unreachable, "\(String(describing: errors[0]))")
        #expect(errors[0]?.message.contains(missing) == true)
        #expect(errors[1]?.kind == .invalidAddress, "\(String(describing: errors[1]))")
    }
}
