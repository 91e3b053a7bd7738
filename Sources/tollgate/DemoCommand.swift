import Configuration
import Integrations
import StripeSimulator

/// `tollgate demo renew|cancel|refund --email E`: asks the running service's Stripe simulator to
/// renew, cancel or refund the buyer's simulated subscription; the simulator sends the events
/// Stripe sends (`invoice.paid`, `customer.subscription.deleted`, `charge.refunded`) to the
/// service's webhook, so the buyer's entitlements move.
enum DemoCommand {
    static func run(action: String, email: String, configPath: String?) async -> ExitStatus {
        guard let config = CommandLineTool.loadConfig(configPath) else { return .configuration }
        guard config.stripe.simulator else {
            CommandLineTool.printError(
                "tollgate demo: the Stripe simulator is off in this configuration (it is on in demo mode, with no configuration file, or with stripe.simulator: true and no stripe.secret_key)"
            )
            return .failure
        }
        guard let action = SimulatorLifecycleClient.Action(rawValue: action) else { return .usage }
        do {
            let keys = try SimulatorKeys(secretKey: config.secretKey, webhookSecret: config.stripe.webhookSecretList.first)
            let client = SimulatorLifecycleClient(
                serviceURL: config.listen.localURL(port: config.listen.port), apiKey: keys.apiKey, http: URLSessionHTTPClient(service: "tollgate"))
            print("tollgate demo: " + (try await client.perform(action, email: email)))
            return .success
        } catch {
            CommandLineTool.printError("tollgate demo \(action.rawValue): \(error)")
            return .failure
        }
    }
}
