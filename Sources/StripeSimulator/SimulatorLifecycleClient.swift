import Foundation
import JSON
import Integrations

/// Moves a buyer's simulated purchase on from the host (`tollgate demo renew|cancel|refund
/// --email E`), through the running simulator's Stripe API: it finds the customer by email
/// (`GET /v1/customers?email=`), then renews (`POST /v1/test_helpers/subscriptions/{id}/renew`),
/// cancels (`DELETE /v1/subscriptions/{id}`) or refunds the latest payment (`POST /v1/refunds`).
/// The simulator sends the events Stripe sends for each before it answers.
public struct SimulatorLifecycleClient: Sendable {
    /// What to do to the buyer's purchase.
    public enum Action: String, Sendable, CaseIterable {
        case renew, cancel, refund
    }

    let apiBase: String
    let apiKey: String
    let http: any OutboundHTTPClient

    /// - Parameters:
    ///   - serviceURL: the running service's address, e.g. `http://127.0.0.1:8080`.
    ///   - apiKey: `SimulatorKeys.apiKey`.
    public init(serviceURL: String, apiKey: String, http: any OutboundHTTPClient) {
        apiBase = serviceURL + StripeSimulator.apiPath
        self.apiKey = apiKey
        self.http = http
    }

    /// Does `action` to the newest simulated purchase of `email`; answers a sentence saying what was done.
    /// - Throws: `StripeSimulatorError` (`.actionFailed`) when the service cannot be reached, the buyer is unknown or Stripe refuses.
    public func perform(_ action: Action, email: String) async throws -> String {
        let customers = try await list("/v1/customers?email=" + Self.encoded(email))
        guard !customers.isEmpty else {
            throw StripeSimulatorError(
                .actionFailed,
                "the Stripe simulator knows no buyer with the email \(email) (it forgets them when the service restarts; buy again with the demo form)"
            )
        }
        let customerIDs = customers.compactMap { $0["id"]?.stringValue }
        switch action {
        case .renew, .cancel:
            var subscriptions: [JSONValue] = []
            for customer in customerIDs { subscriptions += try await list("/v1/subscriptions?customer=" + customer) }
            guard let subscription = subscriptions.first(where: { $0["status"]?.stringValue != "canceled" }),
                let id = subscription["id"]?.stringValue
            else { throw StripeSimulatorError(.actionFailed, "\(email) has no live simulated subscription") }
            if action == .renew {
                _ = try await call("POST", "/v1/test_helpers/subscriptions/\(id)/renew")
                return "renewed \(id): invoice.paid and customer.subscription.updated sent"
            }
            _ = try await call("DELETE", "/v1/subscriptions/\(id)")
            return "canceled \(id): customer.subscription.deleted sent"
        case .refund:
            var intents: [JSONValue] = []
            for customer in customerIDs { intents += try await list("/v1/payment_intents?customer=" + customer) }
            guard let intent = intents.first?["id"]?.stringValue else {
                throw StripeSimulatorError(.actionFailed, "\(email) has no simulated payment")
            }
            _ = try await call("POST", "/v1/refunds", form: "payment_intent=" + Self.encoded(intent))
            return "refunded \(intent): charge.refunded sent"
        }
    }

    private func list(_ path: String) async throws -> [JSONValue] {
        try await call("GET", path)["data"]?.arrayElements ?? []
    }

    private func call(_ method: String, _ path: String, form: String? = nil) async throws -> JSONValue {
        guard let url = URL(string: apiBase + path) else { throw StripeSimulatorError(.actionFailed, "bad URL \(apiBase + path)") }
        var headers: [(name: String, value: String)] = [("Authorization", "Bearer \(apiKey)")]
        if form != nil { headers.append(("Content-Type", "application/x-www-form-urlencoded")) }
        let response: OutboundResponse
        do {
            response = try await http.send(
                OutboundRequest(method: method, url: url, headers: headers, body: Array((form ?? "").utf8), timeout: .seconds(30)))
        } catch {
            throw StripeSimulatorError(.actionFailed, "cannot reach the running service at \(apiBase) (start it with `tollgate` first): \(error)")
        }
        let object = (try? JSONValue.parse(response.body))?.objectValue ?? [:]
        guard (200..<300).contains(response.status) else {
            if response.status == 404, object["error"] == nil {
                throw StripeSimulatorError(
                    .actionFailed, "the service at \(apiBase) has no Stripe simulator (it runs only in demo mode or with stripe.simulator: true)")
            }
            let message = object["error"]?["message"]?.stringValue ?? "status \(response.status)"
            throw StripeSimulatorError(.actionFailed, "the Stripe simulator refused \(method) \(path): \(message)")
        }
        return object
    }

    private static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}
