import Lifecycle
import UseCases

/// The reminder worker runs in the service group: `run()` queues due reminders until its task is
/// cancelled (at once when reminders are off).
extension ReminderWorker: Service {}
