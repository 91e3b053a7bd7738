import Foundation
import Testing
@testable import Configuration

@Suite("events.endpoints")
struct ConfigEventsTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    func problems(_ endpoints: Any, environment: [String: String] = [:]) -> String {
        do {
            _ = try load(json: Fixtures.json(["events": ["endpoints": endpoints]]), environment: environment)
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test("Several endpoints with a secret inline or from secret_file, types defaulting to all")
    func decodes() throws {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let file = try directory.write("whsec", Self.secret + "\n")
        let config = try load(
            json: Fixtures.json([
                "events": [
                    "endpoints": [
                        ["url": "https://backend.example.com/tollgate", "secret": Self.secret],
                        ["url": "http://127.0.0.1:9000/hooks?x=1", "secret_file": file, "types": ["purchase.*", "code.redeemed"]]
                    ]
                ]
            ]))
        #expect(
            config.events.endpoints == [
                TollgateConfig.EventEndpoint(url: "https://backend.example.com/tollgate", secret: Self.secret, types: ["*"]),
                TollgateConfig.EventEndpoint(url: "http://127.0.0.1:9000/hooks?x=1", secret: Self.secret, types: ["purchase.*", "code.redeemed"])
            ])
        let masked = config.maskedJSON()
        #expect(!masked.contains("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), "config check shows no events secret")
        #expect(masked.contains("https://backend.example.com/tollgate") && masked.contains("********"))
    }

    @Test("The environment variable takes the whole list as JSON")
    func environment() throws {
        let json = #"[{"url": "https://b.example.com/e", "secret": "\#(Self.secret)"}]"#
        let config = try load(json: Fixtures.json(), environment: ["TOLLGATE_EVENTS_ENDPOINTS": json])
        #expect(config.events.endpoints.map(\.url) == ["https://b.example.com/e"])
    }

    @Test("Bad endpoints name the key and never echo the secret")
    func problemsNamed() throws {
        #expect(problems([["url": "ftp://x", "secret": Self.secret]]).contains("events.endpoints[0].url"))
        #expect(problems([["secret": Self.secret]]).contains("events.endpoints[0].url"))
        let notWhsec = problems([["url": "https://a.example.com", "secret": "sk_not_a_webhook_secret_at_all"]])
        #expect(notWhsec.contains("events.endpoints[0].secret") && notWhsec.contains("whsec_"))
        #expect(!notWhsec.contains("sk_not_a_webhook_secret_at_all"))
        #expect(problems([["url": "https://a.example.com", "secret": "whsec_c2hvcnQ="]]).contains("bytes"))
        #expect(problems([["url": "https://a.example.com"]]).contains("events.endpoints[0].secret"))
        #expect(problems([["url": "https://a.example.com", "secret": Self.secret, "secret_file": "/x"]]).contains("use only one"))
        #expect(problems([["url": "https://a.example.com", "secret": Self.secret, "types": ["Purchase Created"]]]).contains("types[0]"))
        #expect(problems([["url": "https://a.example.com", "secret": Self.secret, "typo": 1]]).contains("events.endpoints[0].typo"))
        #expect(
            problems([["url": "https://a.example.com", "secret": Self.secret], ["url": "https://a.example.com", "secret": Self.secret]])
                .contains("appears twice"))
        #expect(problems(["url": "https://a.example.com"]).contains("expected an array"))
        #expect(problems([["url": "https://a.example.com", "secret_file": "/nonexistent/whsec"]]).contains("cannot read secret file"))
    }
}
