import Lifecycle

/// The outbox worker runs in the service group: `run()` delivers until its task is cancelled.
extension OutboxWorker: Service {}
