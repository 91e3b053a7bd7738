import Dispatch
import Logging
import Web
internal import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// `tollgate serve`: starts the service and stops it cleanly on SIGTERM or SIGINT.
enum ServeCommand {
    static func run(configPath: String?) async -> ExitStatus {
        guard let config = CommandLineTool.loadConfig(configPath) else { return .configuration }
        let logger = CommandLineTool.logger(for: config)
        defer { logger.sink.flush() }
        if config.isDemo {
            logger.warning("demo_mode", [("detail", .string("no configuration file: local database, mail written to \(config.mail.fileDir)"))])
        }
        keepFreedMemory()
        let app: TollgateApp
        do {
            app = try TollgateApp(config: config, logger: logger)
            try app.start()
        } catch {
            CommandLineTool.printError("tollgate: cannot start: \(error)")
            return .failure
        }
        await waitForTerminationSignal(logger: logger)
        await app.shutdown()
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

    /// Suspends until SIGTERM or SIGINT arrives (the default actions are turned off so the
    /// process can drain in-flight requests first).
    private static func waitForTerminationSignal(logger: Logger) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queue = DispatchQueue(label: "tollgate.signals")
            let resumed = SignalOnce(continuation)
            for signalNumber in [SIGTERM, SIGINT] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
                source.setEventHandler {
                    logger.info("signal", [("signal", .int(Int(signalNumber)))])
                    resumed.fire()
                }
                source.resume()
                SignalSources.keep(source)
            }
        }
    }
}

/// Resumes a continuation once, however many signals arrive.
private final class SignalOnce: @unchecked Sendable {
    // Only touched on the serial signal queue, so the plain stored property is safe.
    private var continuation: CheckedContinuation<Void, Never>?

    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }

    func fire() {
        continuation?.resume()
        continuation = nil
    }
}

/// Keeps signal sources alive for the life of the process.
private enum SignalSources {
    nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []
    // Only called from the single task that sets up signal handling, before any signal fires.
    static func keep(_ source: any DispatchSourceSignal) { sources.append(source) }
}
