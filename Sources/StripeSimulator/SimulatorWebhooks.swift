import Crypto
import Foundation
import Integrations
import Logging

/// Delivers the simulator's events as Stripe does: an event object around `data.object`, signed
/// with the webhook secret (`Stripe-Signature: t=...,v1=...`) and POSTed over HTTP to
/// `/webhooks/stripe`, one at a time in order, each retried a few times when not answered 2xx.
struct SimulatorWebhooks: Sendable {
    let secret: String
    let serviceURL: @Sendable () -> String
    let http: any OutboundHTTPClient
    let logger: Logger
    /// The clock the signature times come from (the verifier's clock).
    let now: @Sendable () -> Date
    /// Attempts per event (Stripe retries for days; the demo gives up after a few seconds).
    static let attempts = 3

    /// Sends `events` in order; a failure is logged and does not stop the others.
    func send(_ events: [SimulatorEvent]) async {
        for event in events {
            await deliver(event)
        }
    }

    private func deliver(_ event: SimulatorEvent) async {
        let id = event.id
        let body = event.json.serialized()
        guard let url = URL(string: serviceURL() + "/webhooks/stripe") else { return }
        var lastProblem = ""
        for attempt in 1...Self.attempts {
            do {
                // Signed afresh for each attempt, as Stripe does.
                let signature = try StripeSignature.header(body: body, timestamp: Int(now().timeIntervalSince1970), secret: secret)
                let request = OutboundRequest(
                    method: "POST", url: url,
                    headers: [
                        ("Content-Type", "application/json; charset=utf-8"), ("Stripe-Signature", signature),
                        ("User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks) Tollgate-Simulator")
                    ],
                    body: body, timeout: .seconds(10))
                let response = try await http.send(request)
                if (200..<300).contains(response.status) {
                    logger.info("stripe_simulator_event_sent", [("event_id", .string(id)), ("type", .string(event.type))])
                    return
                }
                lastProblem = "answered \(response.status)"
            } catch {
                lastProblem = "\(error)"
            }
            if attempt < Self.attempts { try? await Task.sleep(for: .milliseconds(500 * attempt)) }
        }
        logger.warning(
            "stripe_simulator_event_failed", [("event_id", .string(id)), ("type", .string(event.type)), ("reason", .string(lastProblem))])
    }
}
