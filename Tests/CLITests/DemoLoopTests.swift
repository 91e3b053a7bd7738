import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The newcomer's minute, as a browser and a terminal would do it: `tollgate` started with no
/// configuration file from a folder that is not the package (so templates and static files are
/// found beside the executable), the home page's `a#demo-buy`, the simulator's checkout page,
/// its form, the success page's code, the `.eml` in `data/mail/`, `POST /api/v1/redeem`, the
/// entitlements, and `tollgate demo refund`.
@Suite("The demo loop, as a newcomer runs it", .serialized)
struct DemoLoopTests {
    @Test(
        "home → a#demo-buy → demo checkout → pay → code on the success page and in data/mail → redeem → entitled; tollgate demo refund turns it off",
        .timeLimit(.minutes(3)))
    func wholeLoop() async throws {
        let started = ContinuousClock.now
        let directory = try TemporaryDirectory()
        let port = try Self.freePort()
        let environment = ["TOLLGATE_LISTEN_PORT": String(port)]
        let child = ChildProcess("tollgate", [], environment: environment, directory: directory.path)
        try child.start()
        defer { kill(child.pid, SIGTERM) }
        let running = try #require(await child.waitForStdoutLine { $0.hasPrefix("Tollgate is running at") }, "no human start-up line")
        #expect(running.contains("http://localhost:\(port)"))
        let browser = Browser(base: "http://localhost:\(port)")

        // Home page → a#demo-buy.
        let home = try await browser.get("/")
        #expect(home.status == 200)
        let buy = try #require(Browser.attribute("href", ofTagWith: #"id="demo-buy""#, in: home.body), "no a#demo-buy")
        #expect(home.body.contains("/api/v1/redeem") && home.body.contains("data/mail/"))

        // → the simulator's hosted checkout (303 from /checkout/start, through the real Stripe client).
        let start = try await browser.get(buy.replacingOccurrences(of: "&amp;", with: "&"))
        #expect(start.status == 303)
        let checkoutURL = try #require(start.location)
        #expect(checkoutURL.hasPrefix("http://localhost:\(port)/demo/checkout/cs_test_"))
        let checkout = try await browser.get(checkoutURL)
        #expect(checkout.status == 200)
        #expect(checkout.body.contains("Demo: no real payment"))
        let action = try #require(Browser.attribute("action", ofTagWith: #"id="demo-pay""#, in: checkout.body))
        let token = try #require(Browser.attribute("value", ofTagWith: #"name="token""#, in: checkout.body))

        // Pay → 303 to success_url → the code.
        let email = "newcomer@example.com"
        let paid = try await browser.post(action, form: ["token": token, "email": email, "choice": "pay"])
        #expect(paid.status == 303)
        let successURL = try #require(paid.location)
        #expect(successURL.contains("/checkout/success?session_id=cs_test_"))
        let success = try await browser.get(successURL)
        #expect(success.status == 200)
        let code = try #require(Browser.code(in: success.body), "no code on the success page")

        // The email with the same code in data/mail/ (the outbox worker writes it within seconds).
        var eml: String?
        for _ in 0..<100 where eml == nil {
            let mailDirectory = directory.path + "/data/mail"
            let files = (try? FileManager.default.contentsOfDirectory(atPath: mailDirectory)) ?? []
            eml = files.first { $0.hasSuffix(".eml") }.flatMap { try? String(contentsOfFile: mailDirectory + "/" + $0, encoding: .utf8) }
            if eml == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let message = try #require(eml, "no .eml in data/mail/")
        #expect(message.contains(code))

        // Redeem as the app would, then the entitlement is active.
        let redeemed = try await browser.postJSON("/api/v1/redeem", ["code": code, "app_user_id": "newcomer-app-user", "device_id": "phone-1"])
        #expect(redeemed["status"] as? String == "success", "\(redeemed)")
        #expect(try await Self.premium(browser, "newcomer-app-user") == true)

        // `tollgate demo refund` (another process) → charge.refunded → the entitlement is off.
        let refund = try await ChildProcess.run("tollgate", ["demo", "refund", "--email", email], environment: environment, directory: directory.path)
        #expect(refund.status == 0, "\(refund.stderr)")
        #expect(refund.stdout.contains("charge.refunded"))
        #expect(try await Self.premium(browser, "newcomer-app-user") == false)

        let elapsed = ContinuousClock.now - started
        print("DemoLoopTests: the whole demo loop (start, buy, pay, code, email, redeem, refund) took \(elapsed)")
        kill(child.pid, SIGTERM)
        #expect(try await child.finish().status == 0)
    }

    static func premium(_ browser: Browser, _ appUserID: String) async throws -> Bool? {
        let answer = try await browser.get("/api/v1/entitlements?app_user_id=\(appUserID)")
        let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
        let entitlements = object?["entitlements"] as? [[String: Any]] ?? []
        return entitlements.first { $0["id"] as? String == "premium" }?["active"] as? Bool
    }

    /// A loopback port nobody listens on now (demo mode's base URL names the port, so it is fixed).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw BrowserError("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct BrowserError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What a browser does on these pages, over HTTP: follows links and submits forms, one request
/// at a time, without following redirects by itself (so each 303 can be checked).
struct Browser {
    struct Page {
        let status: Int
        let body: String
        let location: String?
    }

    let base: String

    func get(_ target: String) async throws -> Page {
        try await send(URLRequest(url: try url(target)))
    }

    func post(_ target: String, form: [String: String]) async throws -> Page {
        var request = URLRequest(url: try url(target))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("same-origin", forHTTPHeaderField: "Sec-Fetch-Site")
        request.httpBody = Data(
            form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&").utf8)
        return try await send(request)
    }

    func postJSON(_ target: String, _ object: [String: String]) async throws -> [String: Any] {
        var request = URLRequest(url: try url(target))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: object)
        let page = try await send(request)
        return (try JSONSerialization.jsonObject(with: Data(page.body.utf8)) as? [String: Any]) ?? [:]
    }

    private func url(_ target: String) throws -> URL {
        guard let url = URL(string: target.hasPrefix("http") ? target : base + target) else { throw BrowserError("bad URL \(target)") }
        return url
    }

    private func send(_ request: URLRequest) async throws -> Page {
        let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw BrowserError("not HTTP") }
        return Page(status: http.statusCode, body: String(decoding: data, as: UTF8.self), location: http.value(forHTTPHeaderField: "Location"))
    }

    /// The value of `name` on the first tag that contains `marker` (e.g. `id="demo-buy"`).
    static func attribute(_ name: String, ofTagWith marker: String, in html: String) -> String? {
        guard let markerRange = html.range(of: marker),
            let open = html[..<markerRange.lowerBound].range(of: "<", options: .backwards),
            let close = html[markerRange.upperBound...].range(of: ">")
        else { return nil }
        let tag = html[open.lowerBound..<close.upperBound]
        guard let start = tag.range(of: " \(name)=\"") else { return nil }
        return tag[start.upperBound...].split(separator: "\"", maxSplits: 1).first.map(String.init)
    }

    /// The code a success page shows.
    static func code(in html: String) -> String? {
        guard let range = html.range(of: #"aria-label="Redemption code ([0-9A-Z-]{19})""#, options: .regularExpression) else { return nil }
        return String(html[range].dropFirst(#"aria-label="Redemption code "#.count).dropLast())
    }
}

/// Hands every redirect back to the caller instead of following it.
final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) { completionHandler(nil) }
}
