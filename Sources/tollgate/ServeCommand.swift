import Foundation
import Logging
import App
internal import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// `tollgate serve`: starts the service and stops it cleanly on SIGTERM or SIGINT.
enum ServeCommand {
    static func run(configPath: String?) async -> ExitStatus {
        guard let config = CommandLineTool.loadConfig(configPath) else { return .configuration }
        let refusals = ServeChecks.refusals(config)
        guard refusals.isEmpty else {
            for refusal in refusals { CommandLineTool.printError("tollgate: cannot start: \(refusal)") }
            return .configuration
        }
        let logger = CommandLineTool.logger(for: config)
        defer { logger.sink.flush() }
        if config.isDemo {
            logger.warning("demo_mode", [("detail", .string("no configuration file: local database, mail written to \(config.mail.fileDir)"))])
        }
        keepFreedMemory()
        do {
            let app = try TollgateApp(config: config, logger: logger)
            // Demo mode's console admin: made once, its credentials shown on the terminal only (never logged).
            let demoOperator =
                config.isDemo && config.console.enabled
                ? try await app.useCases.consoleOperators.demoOperator(email: "admin@demo.localhost", now: Date()) : nil
            try await app.run { port in
                // One line for a person (the JSON log on standard error goes on as it is).
                let address =
                    config.isDemo
                    ? config.listen.localURL(port: port).replacingOccurrences(of: "127.0.0.1", with: "localhost") : config.baseURL
                let line =
                    "Tollgate is running at \(address)"
                    + (config.isDemo ? " (demo mode: open it in a browser and press Try a demo purchase; Ctrl-C stops it)" : "")
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
                if let demoOperator {
                    let console = """
                        Console: \(address)/console/ (shown once, never logged; keep it)
                          email \(demoOperator.email)
                          password \(demoOperator.password)
                          authenticator secret \(demoOperator.secret) (add it to an authenticator app: TOTP, SHA-1, 6 digits, 30 s)

                        """
                    FileHandle.standardOutput.write(Data(console.utf8))
                }
            }
        } catch {
            CommandLineTool.printError("tollgate: cannot start: \(error)")
            return .failure
        }
        return .success
    }

    /// glibc gives the top of each thread's heap back to the system once 128 KiB of it is free,
    /// and takes it back a page at a time: under steady load that is a stream of `mprotect`
    /// calls, each taking the process-wide memory-map lock that every other thread's page faults
    /// wait on (measured: about 10% more redemptions per second without it). A server that will
    /// need the memory again keeps up to 64 MiB free per heap.
    private static func keepFreedMemory() {
        _ = tollgate_malloc_trim_threshold(64 << 20)
    }
}
