import Foundation
import Logging

/// Runs `ReconcilePurchases` in the background every `reconcile.interval_seconds` (the first run
/// one interval after start, so a fleet restarting together does not stampede the stores). On
/// several instances each provider's run is claimed by one of them; the others find it `busy`.
public final class ReconcileWorker: Sendable {
    let reconcile: ReconcilePurchases
    let interval: Duration
    private let loop = WorkLoop()

    /// - Parameter interval: the time between runs; the worker does nothing when it is zero.
    public init(reconcile: ReconcilePurchases, interval: Duration) {
        self.reconcile = reconcile
        self.interval = interval
    }

    /// Runs until cancelled.
    public func run() async {
        // Off, or nothing to reconcile: it waits for the end like the other services.
        let on = interval > .zero && !reconcile.providers.isEmpty
        await loop.run(
            after: on ? interval : .seconds(3600),
            pass: {
                if on { await reconcile.run() }
                return false
            }, sleep: { on ? interval : .seconds(3600) })
    }
}
