import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Stops the server when the test process exits (atexit), and removes its directory.
enum ServerReaper {
    // Written once, before atexit is registered (the fixture starts once); read only at exit.
    nonisolated(unsafe) private static var command: String?

    static func register(pgCtl: String, data: String, root: String, runAsPostgres: Bool) {
        let stop = "\(pgCtl) -D '\(data)' -m immediate -w stop"
        command = (runAsPostgres ? "/usr/sbin/runuser -u postgres -- \(stop)" : stop) + " >/dev/null 2>&1; rm -rf '\(root)'"
        atexit {
            if let command = ServerReaper.command { _ = system(command) }
        }
    }
}
