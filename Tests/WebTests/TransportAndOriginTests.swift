import Foundation
import HTTPCore
import Logging
import Testing

@testable import Web

/// Issue 40, finding 9 (part): `Strict-Transport-Security` on every answer of an https service
/// (never on http), and GoNative's cookie postUrl refuses a post from another site's page.
@Suite("HSTS and the GoNative postUrl's Origin")
struct TransportAndOriginTests {
    @Test("base_url https: every answer carries Strict-Transport-Security (pages, JSON, errors, 404, 405, a protocol error)")
    func hstsOnHTTPS() async throws {
        let app = try TestApp(extra: ["base_url": "https://pay.example.com"])
        let answers = [
            await app.send(.get, "/healthz"), await app.send(.get, "/"), await app.send(.get, "/no-such-page"),
            await app.send(.delete, "/healthz"), await app.send(.get, "/api/v1/entitlements"),
            await app.send(.post, "/api/v1/redeem", headers: ["Content-Type": "application/json"], body: "{\"code\":"),
            app.app.responder.protocolErrorResponse(
                status: .badRequest, message: "bad", info: RequestInfo(requestId: "r", logger: Logger(sink: app.logs, minimumLevel: .debug)))
        ]
        for response in answers {
            #expect(response.headers["Strict-Transport-Security"] == "max-age=31536000", "\(response.status.code) \(response.text.prefix(80))")
        }
    }

    @Test("base_url http: no Strict-Transport-Security anywhere")
    func noHSTSOnHTTP() async throws {
        let app = try TestApp()
        for response in [await app.send(.get, "/healthz"), await app.send(.get, "/"), await app.send(.get, "/no-such-page")] {
            #expect(response.headers["Strict-Transport-Security"] == nil)
        }
    }

    @Test("The origin rule: base_url's scheme, host and port; default ports alike; null and other sites foreign")
    func originRule() {
        #expect(RequestOrigin.origin(of: "https://Pay.Example.com:443/path?x") == "https://pay.example.com")
        #expect(RequestOrigin.origin(of: "http://localhost:8080") == "http://localhost:8080")
        #expect(RequestOrigin.origin(of: "null") == nil)
        func request(_ origin: String?) -> HTTPRequest {
            var headers: HTTPHeaders = [:]
            if let origin { headers.set("Origin", origin) }
            return HTTPRequest(method: .post, target: "/gonative/receipt", headers: headers, body: [])
        }
        #expect(!RequestOrigin.isForeign(request(nil), baseURL: "https://pay.example.com"))
        #expect(!RequestOrigin.isForeign(request("https://pay.example.com"), baseURL: "https://pay.example.com"))
        #expect(RequestOrigin.isForeign(request("https://evil.example"), baseURL: "https://pay.example.com"))
        #expect(RequestOrigin.isForeign(request("http://pay.example.com"), baseURL: "https://pay.example.com"))
        #expect(RequestOrigin.isForeign(request("https://pay.example.com.evil.example"), baseURL: "https://pay.example.com"))
        #expect(RequestOrigin.isForeign(request("null"), baseURL: "https://pay.example.com"))
    }

    @Test(
        "POST /gonative/receipt from another site's page: GoNative's 200 {success: false, title, message, loadUrl}; Apple is not asked, nothing stored"
    )
    func goNativeForeignOrigin() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (_, cookie) = try await GoNativeWebTests.signedInWebView(harness)
        GoNativeWebTests().validReceipt(harness, "MIIWEBVIEW")
        let headers: HTTPHeaders = ["Content-Type": "application/json", "Cookie": cookie, "Origin": "https://evil.example"]
        let foreign = await harness.app.send(.post, "/gonative/receipt", headers: headers, body: #"{"receipt-data":"MIIWEBVIEW"}"#)
        #expect(foreign.status == .ok)
        let json = try #require(foreign.jsonObject)
        #expect(json["success"] as? Bool == false)
        #expect((json["title"] as? String)?.isEmpty == false && (json["message"] as? String)?.isEmpty == false)
        #expect(json["loadUrl"] as? String == "https://pay.example.com/gonative/store")
        #expect(harness.apple.receiptRequests.isEmpty)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)

        var own = headers
        own.set("Origin", "https://pay.example.com")
        let fromOurPage = await harness.app.send(.post, "/gonative/receipt", headers: own, body: #"{"receipt-data":"MIIWEBVIEW"}"#)
        #expect(fromOurPage.jsonObject?["success"] as? Bool == true, "\(fromOurPage.text)")
    }

    @Test("A page prepared with the security headers is left alone; prepared for http then served over https, or changed after, it gets them")
    func preparedPagesAndTheSecurityHeaders() {
        var page = HTTPResponse(status: .ok, contentType: "text/html; charset=utf-8", body: "<p>hi</p>")
        SecurityHeaders.applyAndPrepare(to: &page, https: false)
        #expect(page.headers["X-Frame-Options"] == "DENY" && page.headers["Strict-Transport-Security"] == nil)

        var again = page
        SecurityHeaders.apply(to: &again, https: false)
        #expect(again.headers.isPrepared(tag: SecurityHeaders.preparedTag(https: false)))

        var overHTTPS = page
        SecurityHeaders.apply(to: &overHTTPS, https: true)
        #expect(overHTTPS.headers["Strict-Transport-Security"] == "max-age=31536000")

        var changed = page
        changed.headers.remove("X-Frame-Options")
        SecurityHeaders.apply(to: &changed, https: false)
        #expect(changed.headers["X-Frame-Options"] == "DENY")
    }
}
