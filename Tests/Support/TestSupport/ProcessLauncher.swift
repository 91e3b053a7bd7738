import Foundation
import Synchronization

/// Starts child processes one at a time. Foundation's `Process.run()` on Linux is not safe to
/// call from several threads at once (it crashed the test process with SIGSEGV when parallel
/// tests launched children together), so every test launch goes through this lock.
public enum ProcessLauncher {
    private static let lock = Mutex(())

    /// Runs `process` under the launch lock.
    /// - Throws: what `Process.run()` throws.
    public static func launch(_ process: Process) throws {
        try lock.withLock { _ in try process.run() }
    }
}
