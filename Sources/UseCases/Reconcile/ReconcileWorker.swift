import Foundation
import Logging

/// Runs `ReconcilePurchases` in the background every `reconcile.interval_seconds` (the first run
/// one interval after start, so a fleet restarting together does not stampede the stores). On
/// several instances each provider's run is claimed by one of them; the others find it `busy`.
public final class ReconcileWorker: Sendable {
    let reconcile: ReconcilePurchases
    let interval: Duration

    /// - Parameter interval: the time between runs; the worker does nothing when it is zero.
    public init(reconcile: ReconcilePurchases, interval: Duration) {
        self.reconcile = reconcile
        self.interval = interval
    }

    /// Runs until cancelled.
    public func run() async throws {
        guard interval > .zero, !reconcile.providers.isEmpty else {
            // Off, or nothing to reconcile: wait for the end like the other services.
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            return
        }
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard !Task.isCancelled else { return }
            await reconcile.run()
        }
    }
}
