import Lifecycle
import UseCases

/// The consumption-information worker runs in the service group: `run()` answers Apple's refund
/// requests until its task is cancelled.
extension ConsumptionInformationWorker: Service {}
