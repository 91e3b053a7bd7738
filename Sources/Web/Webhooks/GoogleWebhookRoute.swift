import HTTPCore
import HTTPRouting
import UseCases

/// `POST /webhooks/google?token=...`: Pub/Sub pushes of Google Play real-time developer
/// notifications (`ApplyGoogleNotification`): a wrong token or a body that is not an RTDN is
/// `400` with nothing stored; another app's notification and a test are `200` with nothing
/// stored; Google unreachable is `503` (Pub/Sub redelivers).
struct GoogleWebhookRoute {
    let apply: ApplyGoogleNotification

    func add(to group: inout RouteGroup) {
        group.add(.post, "/webhooks/google", maxBodyBytes: 64 * 1024, jsonBody: .validatedOnly) { [apply] request, _ in
            let outcome = try await apply.apply(token: request.queryParameter("token"), pushBody: request.body)
            var response = HTTPResponse.json { json in
                json.bool("received", true)
                if outcome == .test { json.bool("test", true) } else { json.bool("duplicate", outcome == .duplicate) }
            }
            response.outcome = outcome.rawValue
            return response
        }
    }
}
