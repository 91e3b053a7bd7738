import Foundation
import HTTPServer
import Integrations

/// `POST /webhooks/stripe`: verified over the raw body (signature, 300 s tolerance) before
/// any parsing; a bad signature or stale timestamp is 400 with nothing stored; a repeated
/// event id is 200 with nothing done twice; Stripe's read failures answer 503 so Stripe retries.
struct StripeWebhookRoute {
    let services: AppServices

    func register(on router: inout Router) {
        router.add(.post, "/webhooks/stripe", maxBodyBytes: 512 * 1024) { [services] request, context in
            guard let secret = services.config.stripe.webhookSecret, let stripe = services.stripe else {
                throw APIError(status: .serviceUnavailable, code: "upstream_unavailable", message: "Stripe webhooks are not configured on this server.")
            }
            let now = services.now()
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
            let applied: Bool
            do {
                applied = try await StripeSync(services: services, stripe: stripe).apply(event, now: now)
            } catch let error as UpstreamError {
                context.logger.warning("stripe_webhook_deferred", [("event_id", .string(event.id)), ("reason", .string(error.description))])
                throw APIError(status: .serviceUnavailable, code: "upstream_unavailable", message: "Stripe could not be read; retry later.")
            }
            context.logger.info("stripe_webhook", [("event_id", .string(event.id)), ("type", .string(event.type)), ("duplicate", .bool(!applied))])
            return .json { json in
                json.bool("received", true)
                json.bool("duplicate", !applied)
            }
        }
    }
}
