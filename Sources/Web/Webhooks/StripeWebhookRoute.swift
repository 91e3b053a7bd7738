import Foundation
import HTTPCore
import HTTPRouting
import Integrations
import UseCases

/// `POST /webhooks/stripe`: verified over the raw body (signature, 300 s tolerance) before
/// any parsing; a bad signature or stale timestamp is 400 with nothing stored; a repeated
/// event id is 200 with nothing done twice; Stripe's read failures answer 503 so Stripe
/// retries; a well-formed event that cannot become a purchase is 200, logged, nothing stored.
struct StripeWebhookRoute {
    /// `stripe.webhook_secret`; nil when webhooks are not configured.
    let secret: String?
    /// Nil when Stripe is not configured.
    let apply: ApplyStripeEvent?
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup) {
        group.add(.post, "/webhooks/stripe", maxBodyBytes: 512 * 1024) { [secret, apply, now] request, context in
            guard let secret, let apply else {
                throw UseCaseError.notConfigured("Stripe webhooks are not configured on this server (stripe.webhook_secret, stripe.secret_key).")
            }
            let now = now()
            let event: StripeEvent
            do {
                event = try StripeWebhookVerifier(secret: secret).verifiedEvent(
                    payload: request.body, signatureHeader: request.headers["Stripe-Signature"], now: now)
            } catch let error as StripeWebhookError {
                context.logger.warning("stripe_webhook_rejected", [("reason", .string(error.description))])
                throw APIError.badRequest(error.description)
            } catch let error as StripeDecodingError {
                throw APIError.badRequest("The event cannot be read: \(error)")
            }
            let outcome = try await apply.apply(event, now: now)
            context.logger.info("stripe_webhook", [("event_id", .string(event.id)), ("type", .string(event.type)), ("outcome", .string(outcome.rawValue))])
            var response = HTTPResponse.json { json in
                json.bool("received", true)
                json.bool("duplicate", outcome == .duplicate)
            }
            response.outcome = outcome.rawValue
            return response
        }
    }
}
