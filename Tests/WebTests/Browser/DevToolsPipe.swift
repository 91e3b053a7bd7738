import Foundation
import JSON
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Why a DevTools command or a page load failed: Chromium's own error text, a failed
/// navigation's `net::ERR_…`, a missing answer, or a browser that went away.
struct DevToolsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One Chromium started with `--remote-debugging-pipe`, spoken to in the DevTools protocol:
/// commands are NUL-terminated JSON written to the child's descriptor 3, answers and events are
/// read from its descriptor 4 by a thread of their own.
///
/// Chromium exits when it reads the end of its pipe, so closing this side (`close()`, or the
/// kernel when the test process ends however it ends) ends the browser: it cannot outlive the run.
///
/// `@unchecked Sendable`: the descriptors and the process are set once in `init`; everything that
/// changes (answers awaited, event handlers, whether the pipe is open) is behind `state`, and
/// writes are serialized by `writing`.
final class DevToolsPipe: @unchecked Sendable {
    /// Receives the events of one session (`""`: the browser's own).
    typealias EventHandler = @Sendable (_ method: String, _ params: JSONValue) -> Void

    let process: SpawnedProcess
    /// The parent's ends: commands go out on `commands`, answers come in on `answers`.
    private let commands: Int32
    private let answers: Int32
    private let state = Mutex(State())
    /// Whether the command pipe is still open; held while writing.
    private let writing = Mutex(true)

    private struct State {
        var nextID = 0
        var awaiting: [Int: CheckedContinuation<JSONValue, any Error>] = [:]
        var handlers: [String: EventHandler] = [:]
        /// Why the pipe is closed, once it is.
        var closed: String?
    }

    /// Starts `executable` with `arguments` (among them `--remote-debugging-pipe`), its standard
    /// error into `log`.
    /// - Throws: `ChildProcessError` when a pipe cannot be made or the spawn fails.
    init(_ executable: String, _ arguments: [String], environment: [String: String], log: String) throws {
        _ = signal(SIGPIPE, SIG_IGN)  // a write after Chromium died fails with EPIPE instead
        process = try SpawnedProcess(
            executable, arguments, environment: environment, standardInput: .null, standardOutput: .null,
            standardError: .file(log), channels: [(3, true), (4, false)])
        guard let commands = process.channels[3], let answers = process.channels[4] else {
            throw ChildProcessError(description: "no DevTools pipe to chromium")
        }
        self.commands = commands
        self.answers = answers
        let reader = Thread { [self] in readAnswers() }
        reader.name = "tollgate.tests.devtools-reader"
        reader.start()
    }

    /// Whether the browser is still there to answer.
    var isOpen: Bool { state.withLock { $0.closed == nil } }

    /// Sends `method` with `params` (to `session`, or to the browser) and answers its result.
    /// - Throws: `DevToolsError` with Chromium's error, when no answer came within `timeout`, or
    ///   when the pipe is closed.
    func call(_ method: String, _ params: JSONValue = [:], session: String? = nil, timeout: Duration = .seconds(90)) async throws -> JSONValue {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        var message: [(key: String, value: JSONValue)] = [("id", .integer(Int64(id))), ("method", .string(method)), ("params", params)]
        if let session { message.append(("sessionId", .string(session))) }
        let bytes = JSONValue.object(message).serialized() + [0]
        let timer = Task { [self] in
            try await Task.sleep(for: timeout)
            answer(id, with: .failure(DevToolsError("\(method) got no answer within \(timeout)")))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let closed = state.withLock { state -> String? in
                if let reason = state.closed { return reason }
                state.awaiting[id] = continuation
                return nil
            }
            if let closed {
                continuation.resume(throwing: DevToolsError("\(method): the browser is gone (\(closed))"))
                return
            }
            if let failure = write(bytes) { answer(id, with: .failure(DevToolsError("\(method): \(failure)"))) }
        }
    }

    /// Routes the events of `session` (`""` for the browser's) to `handler`, or stops with nil.
    func onEvents(of session: String, _ handler: EventHandler?) {
        state.withLock { $0.handlers[session] = handler }
    }

    /// Closes this side of the pipe, so Chromium exits; waits up to `grace` for it, then kills it.
    func close(grace: Duration = .seconds(10)) async {
        shut()
        let process = process
        await offPool {
            let deadline = ContinuousClock.now + grace
            while process.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
            if process.isRunning {
                process.send(SIGKILL)
                process.waitForExit()
            }
        }
    }

    /// Closes the command pipe at once (from `atexit` too: no waiting, no allocation needed).
    func shut() {
        writing.withLock { open in
            if open { Glibc.close(commands) }
            open = false
        }
    }

    // MARK: Wire

    /// Writes `bytes` whole; the reason when it cannot.
    private func write(_ bytes: [UInt8]) -> String? {
        writing.withLock { open in
            guard open else { return "the pipe to the browser is closed" }
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { Glibc.write(commands, $0.baseAddress! + offset, bytes.count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return "cannot write to the browser: \(String(cString: strerror(errno)))"
                }
                offset += written
            }
            return nil
        }
    }

    /// The reader thread: splits what comes in at each NUL and hands every message on, until the
    /// end of the pipe (the browser exited), when every command still awaited fails.
    private func readAnswers() {
        var buffer: [UInt8] = []
        var scanned = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var reason = "the browser closed its pipe"
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(answers, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                if count < 0 { reason = "cannot read from the browser: \(String(cString: strerror(errno)))" }
                break
            }
            buffer.append(contentsOf: chunk[0..<count])
            var start = 0
            while let end = buffer[scanned...].firstIndex(of: 0) {
                dispatch(Array(buffer[start..<end]))
                start = end + 1
                scanned = start
            }
            if start > 0 { buffer.removeFirst(start) }
            scanned = buffer.count
        }
        Glibc.close(answers)
        let awaiting = state.withLock { state in
            state.closed = reason
            defer { state.awaiting = [:] }
            return state.awaiting
        }
        for (_, continuation) in awaiting { continuation.resume(throwing: DevToolsError(reason)) }
        process.waitForExit()
    }

    private func dispatch(_ bytes: [UInt8]) {
        guard let message = try? JSONValue.parse(bytes, maxDepth: 256) else { return }
        if case .integer(let id)? = message["id"] {
            if case .object? = message["error"] {
                let text = message["error"]?["message"]?.stringValue ?? "error"
                answer(Int(id), with: .failure(DevToolsError(text)))
            } else {
                answer(Int(id), with: .success(message["result"] ?? [:]))
            }
            return
        }
        guard case .string(let method)? = message["method"] else { return }
        var session = ""
        if case .string(let id)? = message["sessionId"] { session = id }
        let handler = state.withLock { $0.handlers[session] }
        handler?(method, message["params"] ?? [:])
    }

    private func answer(_ id: Int, with result: Result<JSONValue, any Error>) {
        state.withLock { $0.awaiting.removeValue(forKey: id) }?.resume(with: result)
    }
}
