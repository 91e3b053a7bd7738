import Lifecycle
import UseCases

/// The link-out report worker runs in the service group: `run()` sends reports until its task is
/// cancelled, then lets the report in flight finish.
extension LinkOutReportWorker: Service {}
