import Dispatch
#if canImport(Glibc)
    import Glibc
#endif

/// Waits for a termination signal. The signals' default actions are turned off the first time,
/// so the process can drain in-flight work before it exits.
enum TerminationSignal {
    /// The signal that arrived. Returns at once with 0 when the waiting task is cancelled.
    static func wait(for signals: [Int32]) async -> Int32 {
        let box = SignalBox()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
                box.arm(continuation, signals: signals)
            }
        } onCancel: {
            box.fire(0)
        }
    }
}

/// Resumes a continuation once, from a signal or a cancellation.
private final class SignalBox: @unchecked Sendable {
    // `continuation` and `sources` are only touched on `queue`, a serial queue.
    private let queue = DispatchQueue(label: "tollgate.signals")
    private var continuation: CheckedContinuation<Int32, Never>?
    private var sources: [any DispatchSourceSignal] = []
    private var fired: Int32?

    func arm(_ continuation: CheckedContinuation<Int32, Never>, signals: [Int32]) {
        queue.sync {
            if let fired {
                continuation.resume(returning: fired)
                return
            }
            self.continuation = continuation
            for number in signals {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { [weak self] in self?.resume(number) }
                source.resume()
                sources.append(source)
            }
        }
    }

    func fire(_ number: Int32) { queue.async { self.resume(number) } }

    private func resume(_ number: Int32) {
        if fired == nil { fired = number }
        continuation?.resume(returning: number)
        continuation = nil
        for source in sources { source.cancel() }
        sources = []
    }
}
