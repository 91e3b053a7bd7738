import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// `POST /webhooks/apple`: App Store Server Notifications V2 `{"signedPayload": "..."}`
/// (`ApplyAppleNotification`). A payload that does not verify is `400` naming the kind, with
/// nothing stored; `200` is answered only once the notification is stored, or for one that
/// verifies but is not this deployment's, and for a version 1 notification
/// (`{"notification_type": ...}`): `{"received": true, "ignored": true}`, nothing stored.
struct AppleWebhookRoute {
    let apply: ApplyAppleNotification
    let now: @Sendable () -> Date

    private struct Body: Decodable {
        /// Version 2.
        let signedPayload: String?
        /// Version 1 (no signature): `notification_type` (the decoder converts snake case).
        let notificationType: String?
    }

    func add(to group: inout RouteGroup) {
        group.add(.post, "/webhooks/apple", maxBodyBytes: 256 * 1024) { [apply, now] request, context in
            let body = try request.decodeJSON(Body.self, context)
            let outcome: ApplyAppleNotification.Outcome
            if let signedPayload = body.signedPayload {
                outcome = try await apply.apply(signedPayload: signedPayload, now: now())
            } else if let type = body.notificationType {
                outcome = apply.acknowledgeVersion1(notificationType: type)
            } else {
                throw APIError.badRequest("The body has no signedPayload.")
            }
            var response = HTTPResponse.json { json in
                json.bool("received", true)
                switch outcome {
                case .test: json.bool("test", true)
                case .ignored: json.bool("ignored", true)
                case .applied, .duplicate: json.bool("duplicate", outcome == .duplicate)
                }
            }
            response.outcome = outcome.rawValue
            return response
        }
    }
}
