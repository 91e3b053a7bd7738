import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs child processes (zbarimg, openssl, chattr, the built products, ...) for tests without
/// blocking Swift's cooperative pool.
///
/// Launching, feeding standard input, reading both output pipes and waiting for the exit all
/// happen on threads of their own (see `offPool`); the calling task only awaits. Standard output
/// and standard error are read at the same time, so a child that fills one pipe while the other is
/// being read cannot deadlock.
public enum ChildProcessRunner {
    /// Runs `executable` with `arguments` to completion and returns how it ended and what it printed.
    ///
    /// - Parameters:
    ///   - executable: a path, or a bare name looked up in `PATH` (see `locate(_:)`).
    ///   - arguments: the arguments, without the program name.
    ///   - directory: the working directory; the test process's own when nil.
    ///   - environment: the child's whole environment; this process's environment when nil.
    ///   - input: bytes written to the child's standard input, which is then closed; with nil the
    ///     child reads from `/dev/null`.
    /// - Returns: the exit status (or signal), standard output and standard error.
    /// - Throws: `ChildProcessError` when a bare name is not in `PATH` or the process cannot be
    ///   launched or its output cannot be read. A non-zero exit is not an error: check `status`.
    public static func run(
        _ executable: String, _ arguments: [String], directory: String? = nil,
        environment: [String: String]? = nil, input: Data? = nil
    ) async throws -> ProcessResult {
        try await offPool {
            try runBlocking(executable, arguments, directory: directory, environment: environment, input: input)
        }
    }

    /// Waits for an already started `process` to exit, reading whatever is left on its output
    /// pipes until they close, all off the cooperative pool. For children a test talks to while
    /// they run (servers it stops with a signal), where `run` does not fit.
    ///
    /// - Parameters:
    ///   - process: a launched process.
    ///   - stdout: the read end of the pipe given as its standard output, or nil if not captured.
    ///   - stderr: the read end of the pipe given as its standard error, or nil if not captured.
    /// - Returns: the exit status (or signal) and the bytes read from the pipes.
    /// - Throws: `ChildProcessError` when a pipe cannot be read.
    public static func finish(_ process: SpawnedProcess, stdout: FileHandle?, stderr: FileHandle?) async throws -> ProcessResult {
        let child = StartedChild(process: process, stdout: stdout, stderr: stderr)
        return try await offPool { try collect(child) }
    }

    /// The full path of `tool` in `PATH` (`/usr/bin:/bin` when unset), or nil when it is not installed.
    public static func locate(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    // MARK: Blocking parts, only ever called off the pool

    private static func runBlocking(
        _ executable: String, _ arguments: [String], directory: String?, environment: [String: String]?, input: Data?
    ) throws -> ProcessResult {
        let path: String
        if executable.contains("/") {
            path = executable
        } else {
            guard let found = locate(executable) else {
                throw ChildProcessError(description: "\(executable) is not in PATH")
            }
            path = found
        }
        let process = try SpawnedProcess(
            path, arguments, environment: environment, directory: directory,
            standardInput: input == nil ? .null : .pipe)
        if let input, let writer = process.standardInput {
            _ = ignoreBrokenPipes
            // A separate thread, so a child that prints before it has read everything cannot
            // deadlock against us. A child that exits without reading makes the write fail with
            // EPIPE, which is ignored: its status tells the test what happened.
            DispatchQueue(label: "tollgate.tests.stdin-writer").async {
                try? writer.write(contentsOf: input)
                try? writer.close()
            }
        }
        return try collect(StartedChild(process: process, stdout: process.standardOutput, stderr: process.standardError))
    }

    /// Reads standard error on a second thread while this one reads standard output, then reaps.
    private static func collect(_ child: StartedChild) throws -> ProcessResult {
        let group = DispatchGroup()
        let errorOutput = Mutex<Result<Data, any Error>>(.success(Data()))
        if let stderr = child.stderr {
            DispatchQueue(label: "tollgate.tests.stderr-reader").async(group: group) {
                let result = Result { try stderr.readToEnd() ?? Data() }
                errorOutput.withLock { $0 = result }
            }
        }
        let standardOutput = Result { try child.stdout?.readToEnd() ?? Data() }
        group.wait()
        let exit = child.process.waitForExit()
        do {
            return ProcessResult(
                status: exit.status,
                endedBySignal: exit.bySignal,
                stdout: try standardOutput.get(), stderr: try errorOutput.withLock { try $0.get() })
        } catch {
            throw ChildProcessError(description: "cannot read the output of process \(child.process.pid): \(error)")
        }
    }

    /// Writing to a pipe whose reader has exited raises SIGPIPE, which would end the test process.
    private static let ignoreBrokenPipes: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()
}

/// A launched process and the parent's ends of its output pipes, handed to the thread that waits.
///
/// `@unchecked Sendable`: `FileHandle` is not declared Sendable. Once the process has started,
/// the waiting thread is the only one that reads the pipes and waits.
private struct StartedChild: @unchecked Sendable {
    let process: SpawnedProcess
    let stdout: FileHandle?
    let stderr: FileHandle?
}
