import Foundation
import Glibc
import TestSupport

/// The TCP sockets on this machine whose local port is a server's (`/proc/net/tcp`): what `ss`
/// shows for the server side of its connections.
struct ServerSockets: Equatable {
    /// Sockets a process holds a descriptor for (a nonzero inode), the listener excepted.
    var open = 0
    /// Sockets in CLOSE-WAIT: the client has closed, the server not yet.
    var closeWait = 0

    /// The counts for `port` now (IPv4 only: the servers under test listen on 127.0.0.1).
    static func sample(port: Int) -> ServerSockets {
        var counts = ServerSockets()
        guard let table = procFile("/proc/net/tcp") else { return counts }
        let local = Array(String(format: ":%04X", port).utf8)
        // Scanned as bytes: after a storm the table holds thousands of TIME-WAIT lines.
        table.withUnsafeBufferPointer { bytes in
            var index = 0
            var fields: [Range<Int>] = []
            while index < bytes.count {
                // One line: its first ten whitespace-separated fields.
                fields.removeAll(keepingCapacity: true)
                while index < bytes.count && bytes[index] != 0x0A {
                    if bytes[index] == 0x20 { index += 1; continue }
                    let start = index
                    while index < bytes.count && bytes[index] != 0x20 && bytes[index] != 0x0A { index += 1 }
                    if fields.count < 10 { fields.append(start..<index) }
                }
                index += 1
                // sl local remote st tx:rx tr:when retrnsmt uid timeout inode (the header has no ':' port match)
                guard fields.count == 10, fields[1].count > local.count,
                    bytes[(fields[1].upperBound - local.count)..<fields[1].upperBound].elementsEqual(local)
                else { continue }
                let state = (bytes[fields[3].lowerBound], bytes[fields[3].lowerBound + 1])
                if state == (0x30, 0x41) { continue }  // "0A": LISTEN
                if state == (0x30, 0x38) { counts.closeWait += 1 }  // "08": CLOSE-WAIT
                if !(fields[9].count == 1 && bytes[fields[9].lowerBound] == 0x30) { counts.open += 1 }  // inode != "0"
            }
        }
        return counts
    }

    /// The whole of a /proc file (its size reads as 0: read until EOF).
    private static func procFile(_ path: String) -> [UInt8]? {
        let fd = Glibc.open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return bytes
    }
}

/// Samples how many sockets some processes hold (the entries of `/proc/<pid>/fd` that are
/// sockets: their listener, client connections and database connections) on a thread of its
/// own until stopped, keeping the highest count per process.
///
/// `@unchecked Sendable`: `highest`, `samples` and `running` are touched only with `lock` held.
final class SocketSampler: @unchecked Sendable {
    private let lock = NSLock()
    private var highest: [pid_t: Int] = [:]
    private var running = true
    private var samples = 0

    /// Starts sampling every `interval`.
    init(pids: [pid_t], interval: TimeInterval = 0.005) {
        let thread = Thread { [self] in
            while lock.withLock({ running }) {
                for pid in pids {
                    let now = Self.sockets(of: pid)
                    lock.withLock { highest[pid] = max(highest[pid] ?? 0, now) }
                }
                lock.withLock { samples += 1 }
                Thread.sleep(forTimeInterval: interval)
            }
        }
        thread.start()
    }

    /// Stops sampling; returns the highest count per process and how many samples were taken.
    func stop() -> (highest: [pid_t: Int], samples: Int) {
        lock.withLock {
            running = false
            return (highest, samples)
        }
    }

    /// The sockets `pid` holds now.
    static func sockets(of pid: pid_t) -> Int {
        let directory = "/proc/\(pid)/fd"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
        var buffer = [CChar](repeating: 0, count: 64)
        return names.reduce(0) { count, name in
            let length = readlink(directory + "/" + name, &buffer, buffer.count - 1)
            guard length > 0 else { return count }
            return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self).hasPrefix("socket:") ? count + 1 : count
        }
    }

    /// Waits until no server-side socket of `ports` is open or in CLOSE-WAIT; returns when that
    /// was, or nil when `limit` passed first.
    static func drained(ports: [Int], within limit: TimeInterval) async -> Date? {
        await offPool {
            let start = Date()
            while Date().timeIntervalSince(start) < limit {
                if ports.allSatisfy({ ServerSockets.sample(port: $0) == ServerSockets() }) { return Date() }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return nil
        }
    }
}
