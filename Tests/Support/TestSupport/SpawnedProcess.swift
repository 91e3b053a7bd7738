import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn`. The tests use it instead of Foundation's
/// `Process`, whose `run()` on Linux reads past a heap buffer while scanning /proc/self/fd
/// (AddressSanitizer: heap-buffer-overflow in `findMaximumOpenFromProcSelfFD`), which crashed
/// the test process now and then when many children were started.
///
/// `@unchecked Sendable`: the descriptors and pid are set once in `init`; the exit status is
/// behind a `Mutex`, and only one caller waits (see `waitForExit`).
public final class SpawnedProcess: @unchecked Sendable {
    /// Where a standard stream of the child goes.
    public enum Stream: Sendable {
        /// A pipe whose other end this object exposes.
        case pipe
        /// `/dev/null`.
        case null
        /// A file, created or truncated.
        case file(String)
    }

    public let pid: pid_t
    /// The parent's ends of the pipes, when those streams are `.pipe`.
    public let standardInput: FileHandle?
    public let standardOutput: FileHandle?
    public let standardError: FileHandle?
    /// The parent's ends of the `channels` asked for, by the child's descriptor number; the
    /// caller owns and closes them.
    public let channels: [Int32: Int32]
    private let exit = Mutex<(status: Int32, bySignal: Bool)?>(nil)
    /// One spawn at a time (see the close-on-exec note in `init`).
    private static let spawnLock = Mutex(())

    /// Starts `executable` (an absolute path) with `arguments`. Each of `channels` is one more
    /// pipe, on that descriptor number in the child (Chromium's DevTools pipe on 3 and 4), which
    /// the child reads or writes; the parent's end is in `channels` and no other child inherits it.
    /// - Throws: `ChildProcessError` when a pipe cannot be made or the spawn fails.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        standardInput stdin: Stream = .null, standardOutput stdout: Stream = .pipe, standardError stderr: Stream = .pipe,
        channels: [(descriptor: Int32, childReads: Bool)] = []
    ) throws {
        var path = executable
        var argv = [executable] + arguments
        if let directory {
            // posix_spawn's chdir action is a GNU extension Swift does not see: let env change directory.
            path = "/usr/bin/env"
            argv = [path, "--chdir=\(directory)", executable] + arguments
        }
        let (child, result, parentEnds) = try Self.spawnLock.withLock { _ -> (pid_t, Int32, [Int32: Int32]) in
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            var parentEnds: [Int32: Int32] = [:]
            var childEnds: [Int32] = []
            func setUp(_ stream: Stream, target: Int32, childReads: Bool) throws {
                switch stream {
                case .null:
                    posix_spawn_file_actions_addopen(&actions, target, "/dev/null", childReads ? O_RDONLY : O_WRONLY, 0)
                case .file(let file):
                    posix_spawn_file_actions_addopen(&actions, target, file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                case .pipe:
                    var fds: [Int32] = [0, 0]
                    guard pipe(&fds) == 0 else {
                        throw ChildProcessError(description: "pipe failed: \(String(cString: strerror(errno)))")
                    }
                    // Close-on-exec, so no other child inherits them (spawns are serialized by
                    // `spawnLock`, so none can start between pipe() and these calls).
                    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
                    _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
                    let (childEnd, parentEnd) = childReads ? (fds[0], fds[1]) : (fds[1], fds[0])
                    posix_spawn_file_actions_adddup2(&actions, childEnd, target)
                    childEnds.append(childEnd)
                    parentEnds[target] = parentEnd
                }
            }
            try setUp(stdin, target: 0, childReads: true)
            try setUp(stdout, target: 1, childReads: false)
            try setUp(stderr, target: 2, childReads: false)
            for channel in channels {
                var fds: [Int32] = [0, 0]
                guard pipe(&fds) == 0 else {
                    throw ChildProcessError(description: "pipe failed: \(String(cString: strerror(errno)))")
                }
                // Numbered 10 and up (close-on-exec), so that no dup2 onto a channel's number
                // overwrites another end before it is duplicated.
                let high = fds.map { fcntl($0, F_DUPFD_CLOEXEC, 10) }
                close(fds[0])
                close(fds[1])
                guard !high.contains(-1) else {
                    throw ChildProcessError(description: "fcntl(F_DUPFD_CLOEXEC) failed: \(String(cString: strerror(errno)))")
                }
                let (childEnd, parentEnd) = channel.childReads ? (high[0], high[1]) : (high[1], high[0])
                posix_spawn_file_actions_adddup2(&actions, childEnd, channel.descriptor)
                childEnds.append(childEnd)
                parentEnds[channel.descriptor] = parentEnd
            }

            let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
            let cArguments = argv.map { strdup($0) } + [nil]
            let cEnvironment = variables.map { strdup($0) } + [nil]
            defer {
                for pointer in cArguments { free(pointer) }
                for pointer in cEnvironment { free(pointer) }
            }
            // The spawning thread (a Dispatch or test worker) blocks most signals, and a child
            // inherits that mask: SIGTERM would stay pending for ever and `terminate` would leave
            // it running. Children start as a shell would start them: nothing blocked, every
            // signal's default action.
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            sigemptyset(&none)
            var all = sigset_t()
            sigfillset(&all)
            posix_spawnattr_setsigmask(&attributes, &none)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            var child: pid_t = 0
            let result = posix_spawn(&child, path, &actions, &attributes, cArguments, cEnvironment)
            for descriptor in childEnds { close(descriptor) }
            return (child, result, parentEnds)
        }
        guard result == 0 else {
            for descriptor in parentEnds.values { close(descriptor) }
            throw ChildProcessError(description: "cannot launch \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
        standardInput = parentEnds[0].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        standardOutput = parentEnds[1].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        standardError = parentEnds[2].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        self.channels = parentEnds.filter { $0.key > 2 }
    }

    /// Blocks until the child exits; its exit code, or the signal that ended it.
    /// Call it off the Swift concurrency pool (see `offPool`).
    @discardableResult
    public func waitForExit() -> (status: Int32, bySignal: Bool) {
        if let known = exit.withLock({ $0 }) { return known }
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, 0) } while result < 0 && errno == EINTR
        let outcome = Self.decode(status)
        exit.withLock { $0 = $0 ?? outcome }
        return exit.withLock { $0 ?? outcome }
    }

    /// Whether the child is still running (reaps it when it has exited).
    public var isRunning: Bool {
        if exit.withLock({ $0 }) != nil { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return result == 0 }
        let outcome = Self.decode(status)
        exit.withLock { $0 = $0 ?? outcome }
        return false
    }

    /// The exit status once known (after `waitForExit` or `isRunning` saw it end).
    public var terminationStatus: Int32? { exit.withLock { $0?.status } }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) { _ = kill(pid, signal) }

    /// SIGTERM, then reaps the child on a Dispatch thread of its own so it does not linger as a
    /// zombie (a serial queue: the wait would hold one of the global queues' few workers, `offPool`).
    public func terminate() {
        send(SIGTERM)
        DispatchQueue(label: "tollgate.tests.reap").async { self.waitForExit() }
    }

    /// WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
    private static func decode(_ status: Int32) -> (status: Int32, bySignal: Bool) {
        let signal = status & 0x7f
        return signal == 0 ? ((status >> 8) & 0xff, false) : (signal, true)
    }
}
