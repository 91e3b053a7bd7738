import Lifecycle
import UseCases

/// The reconcile worker runs in the service group: `run()` reconciles every interval until its task
/// is cancelled.
extension ReconcileWorker: Service {}
