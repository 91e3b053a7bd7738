import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// `POST /webhooks/apple`: App Store Server Notifications V2 `{"signedPayload": "..."}`
/// (`ApplyAppleNotification`). A payload that does not verify is `400` naming the kind, with
/// nothing stored; `200` is answered only once the notification is stored.
struct AppleWebhookRoute {
    let apply: ApplyAppleNotification
    let now: @Sendable () -> Date

    private struct Body: Decodable {
        let signedPayload: String
    }

    func add(to group: inout RouteGroup) {
        group.add(.post, "/webhooks/apple", maxBodyBytes: 256 * 1024) { [apply, now] request, _ in
            let body = try request.decodeJSON(Body.self)
            let outcome = try await apply.apply(signedPayload: body.signedPayload, now: now())
            var response = HTTPResponse.json { json in
                json.bool("received", true)
                if outcome == .test { json.bool("test", true) } else { json.bool("duplicate", outcome == .duplicate) }
            }
            response.outcome = outcome.rawValue
            return response
        }
    }
}
