import Foundation
import HTTPCore
import Testing
import TestSupport

/// Apple's shared web credentials (issue 43, item 10): the generated
/// `apple-app-site-association` has a `webcredentials` section naming the app, so Safari can offer
/// the app's saved passwords on `/account` (Apple's "Supporting associated domains").
@Suite("apple-app-site-association: webcredentials")
struct AppleWebCredentialsTests {
    @Test("webcredentials.apps names the app as <team id>.<bundle id>, beside the applinks")
    func webCredentials() async throws {
        let harness = try CheckoutHarness()
        let response = await harness.app.send(.get, "/.well-known/apple-app-site-association")
        #expect(response.status == .ok)
        let document = try #require((try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any])
        let credentials = try #require(document["webcredentials"] as? [String: Any], "\(response.text)")
        #expect(credentials["apps"] as? [String] == ["ABCDE12345.com.example.app"])
        let details = (document["applinks"] as? [String: Any])?["details"] as? [[String: Any]]
        #expect(details?.first?["appIDs"] as? [String] == ["ABCDE12345.com.example.app"])
    }
}
