import Dispatch
#if canImport(Glibc)
    import Glibc
#endif

/// Termination signals caught from the moment this is made (once it returns, Dispatch has them):
/// each arrival is kept instead of the default action (the process ends at once), so the process
/// can drain in-flight work before it exits. Make it before the service listens: a signal that
/// comes as soon as the port accepts (an orchestrator stopping what it just started) must stop
/// the service gracefully, not end the process mid-request.
public final class TerminationSignals: Sendable {
    private let box = SignalBox()

    /// Catches `signals` (SIGTERM, SIGINT) from now on.
    public init(_ signals: [Int32]) {
        box.arm(signals)
    }

    /// The first signal that arrived (at once if one came before the call). Returns 0 when the
    /// waiting task is cancelled first.
    func wait() async -> Int32 {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
                box.await(continuation)
            }
        } onCancel: {
            box.fire(0)
        }
    }
}

/// The signals' sources and the one waiter; what arrived before the waiter is kept for it.
private final class SignalBox: @unchecked Sendable {
    // `continuation`, `sources` and `fired` are only touched on `queue`, a serial queue.
    private let queue = DispatchQueue(label: "tollgate.signals")
    private var continuation: CheckedContinuation<Int32, Never>?
    private var sources: [any DispatchSourceSignal] = []
    private var fired: Int32?

    /// Returns once Dispatch has registered every source (bounded by 5 s): Dispatch installs its
    /// own handler on registration, which happens on its queue, later. Until then the default
    /// action stands: a signal before that ends the process, as it would any process still
    /// starting, instead of being lost. (Setting SIG_IGN first, macOS's idiom, lost a SIGTERM
    /// that came before the registration: the service then ran on and never stopped.)
    func arm(_ signals: [Int32]) {
        let registered = DispatchSemaphore(value: 0)
        queue.sync {
            for number in signals {
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { [weak self] in self?.resume(number) }
                source.setRegistrationHandler { registered.signal() }
                source.resume()
                sources.append(source)
            }
        }
        // Outside `queue`: the registration handlers run on it.
        for _ in signals { _ = registered.wait(timeout: .now() + .seconds(5)) }
    }

    func await(_ continuation: CheckedContinuation<Int32, Never>) {
        queue.sync {
            if let fired {
                continuation.resume(returning: fired)
                return
            }
            self.continuation = continuation
        }
    }

    func fire(_ number: Int32) { queue.async { self.resume(number) } }

    private func resume(_ number: Int32) {
        if fired == nil { fired = number }
        continuation?.resume(returning: number)
        continuation = nil
        for source in sources {
            // A second signal while the service drains is ignored, not the default action.
            signal(Int32(source.handle), SIG_IGN)
            source.cancel()
        }
        sources = []
    }
}
