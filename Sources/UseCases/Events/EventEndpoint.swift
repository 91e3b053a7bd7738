import Crypto
import Domain
import Foundation
import Integrations

/// One receiver of events as the delivery worker uses it: a stable id, the URL (the only place
/// its events go), the signer made from its `whsec_` secret, and the types it wants.
public struct EventEndpoint: Sendable {
    /// `ep_` + 16 hex digits of the URL's SHA-256: stable across restarts and secret rotations.
    public let id: String
    public let url: URL
    public let signer: StandardWebhookSigner
    public let types: [String]

    /// - Throws: `UseCaseError.badRequest` for a URL that is not absolute http(s), `CryptoError` (`.invalidKey`) for a secret that is not `whsec_` + base64.
    public init(url: String, secret: String, types: [String] = ["*"]) throws {
        try self.init(url: url, secrets: [secret], types: types)
    }

    /// An endpoint whose receiver is rolling its secret: every delivery is signed with each of
    /// `secrets` (one `v1,` signature each in `webhook-signature`).
    /// - Throws: as `init(url:secret:types:)`.
    public init(url: String, secrets: [String], types: [String] = ["*"]) throws {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https",
            parsed.host != nil
        else { throw UseCaseError.badRequest("events endpoint \(url) is not an absolute http or https URL") }
        self.url = parsed
        id = "ep_" + String(Hex.encode(try SHA256.hash(Array(url.utf8))).prefix(16))
        signer = try StandardWebhookSigner(secrets: secrets)
        self.types = types
    }

    /// What the queue needs to know of it.
    public var subscription: EventSubscription { EventSubscription(endpointID: id, types: types) }
}
