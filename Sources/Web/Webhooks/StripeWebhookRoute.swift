import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// `POST /webhooks/stripe`: verified over the raw body (signature, 300 s tolerance) before
/// any parsing; a bad signature or stale timestamp is 400 with nothing stored; a repeated
/// event id is 200 with nothing done twice; Stripe's read failures answer 503 so Stripe
/// retries; a well-formed event that cannot become a purchase is 200, logged, nothing stored.
struct StripeWebhookRoute {
    /// Nil when Stripe is not configured.
    let apply: ApplyStripeEvent?
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup) {
        group.add(.post, "/webhooks/stripe", maxBodyBytes: 512 * 1024, jsonBody: .validatedOnly) { [apply, now] request, context in
            guard let apply else {
                throw UseCaseError.notConfigured("Stripe webhooks are not configured on this server (stripe.webhook_secret, stripe.secret_key).")
            }
            let delivery = try await apply.receive(
                payload: request.body, signatureHeader: request.headers["Stripe-Signature"], now: now(), requestLogger: context.logger)
            context.logger.info(
                "stripe_webhook",
                [("event_id", .string(delivery.eventID)), ("type", .string(delivery.type)), ("outcome", .string(delivery.outcome.rawValue))])
            var response = HTTPResponse.json { json in
                json.bool("received", true)
                json.bool("duplicate", delivery.outcome == .duplicate)
            }
            response.outcome = delivery.outcome.rawValue
            return response
        }
    }
}
