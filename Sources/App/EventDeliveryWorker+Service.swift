import Lifecycle
import UseCases

/// The event delivery worker runs in the service group: `run()` delivers until its task is
/// cancelled, then lets the deliveries in flight finish.
extension EventDeliveryWorker: Service {}
