import Synchronization

/// Lets a sleeping loop be woken (new work), stopped, or time out, without polling: `wait`
/// returns at the first of `notify()`, `stop()`, the timeout or task cancellation. A `notify()`
/// while nobody waits is kept for the next `wait`, so no wake-up is lost.
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var stopped = false
        var waiter: (token: Int, continuation: CheckedContinuation<Void, Never>)?
        var nextToken = 0
        /// The token whose timer fired before its waiter was registered.
        var firedEarly = -1
    }

    private let state = Mutex(State())

    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Wakes the waiter, or the next `wait`.
    func notify() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Wakes the waiter; every later `wait` returns at once.
    func stop() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.stopped = true
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        waiter?.resume()
    }

    /// Sleeps until `notify()`, `stop()`, `timeout` or cancellation.
    func wait(upTo timeout: Duration) async {
        let token = state.withLock { state -> Int? in
            if state.pending || state.stopped {
                state.pending = false
                return nil
            }
            state.nextToken += 1
            return state.nextToken
        }
        guard let token else { return }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.fire(token)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending || state.stopped || state.firedEarly == token {
                        state.pending = false
                        return true
                    }
                    state.waiter = (token, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            stop()
        }
        timer.cancel()
    }

    private func fire(_ token: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.waiter?.token == token else {
                state.firedEarly = token
                return nil
            }
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        waiter?.resume()
    }
}
