import Lifecycle
import UseCases

/// The retention worker runs in the service group: `run()` makes a pass every few minutes until
/// its task is cancelled.
extension RetentionWorker: Service {}
