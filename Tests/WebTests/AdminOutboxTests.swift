import Foundation
import HTTPCore
import HTTPRouting
import Mail
import Testing

@testable import Web
@testable import App

@Suite("Admin: mail outbox")
struct AdminOutboxTests {
    @Test(
        "A missing or wrong admin token is 401",
        arguments: [
            [:], ["Authorization": "Bearer wrong-token"], ["Authorization": "Basic abc"], ["Authorization": "Bearer "]
        ] as [[String: String]])
    func unauthorized(headers: [String: String]) async throws {
        let app = try TestApp()
        let response = await app.send(.get, "/admin/v1/outbox", headers: HTTPHeaders(headers.map { (name: $0.key, value: $0.value) }))
        #expect(response.status == .unauthorized)
        #expect(response.errorCode == "unauthorized")
    }

    @Test("Queued mail is listed masked, sealed in the database, and delivered by the worker")
    func listAndDeliver() async throws {
        let app = try TestApp()
        let services = app.app.essentials
        _ = try await services.database.write { connection in
            try services.mail.enqueue(
                key: "test-1", template: "redemption_code", to: "jane.doe@example.com",
                parameters: ["code": "K7P2-9QXM-4D8R-2WTF", "redeem_url": "https://x.test/redeem/K7P2", "product_name": "Pro", "expiry_text": "soon"],
                on: connection)
        }
        let pending = await app.send(.get, "/admin/v1/outbox?status=pending", headers: TestApp.adminHeaders)
        #expect(pending.status == .ok)
        let messages = try #require(pending.jsonObject?["messages"] as? [[String: Any]])
        #expect(messages.count == 1)
        #expect(messages.first?["template"] as? String == "redemption_code")
        #expect((messages.first?["to"] as? String)?.contains("jane.doe") == false)
        #expect(!pending.text.contains("K7P2"))
        let stored = try await services.database.read { try $0.queryOne("SELECT parameters FROM mail_outbox")?.string("parameters") }
        #expect(stored?.contains("K7P2") == false)

        await app.app.workers.outbox.runOnce()
        let sent = await app.send(.get, "/admin/v1/outbox?status=sent", headers: TestApp.adminHeaders)
        #expect((sent.jsonObject?["messages"] as? [[String: Any]])?.count == 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: app.directory.path + "/mail")
        #expect(files.count == 1)
        let eml = try String(contentsOfFile: app.directory.path + "/mail/" + files[0], encoding: .utf8)
        #expect(eml.contains("K7P2-9QXM-4D8R-2WTF"))
        #expect(eml.contains("To: <jane.doe@example.com>"))
    }

    @Test("An unknown status or limit is 400")
    func badQuery() async throws {
        let app = try TestApp()
        #expect(await app.send(.get, "/admin/v1/outbox?status=lost", headers: TestApp.adminHeaders).status == .badRequest)
        #expect(await app.send(.get, "/admin/v1/outbox?limit=0", headers: TestApp.adminHeaders).status == .badRequest)
        // A parameter without a name is refused on every admin route, not ignored.
        #expect(await app.send(.get, "/admin/v1/accounts?email=a%40b.co&=null", headers: TestApp.adminHeaders).status == .badRequest)
        #expect(await app.send(.get, "/admin/v1/purchases?email=a%40b.co&=null", headers: TestApp.adminHeaders).status == .badRequest)
        // So is one the route does not take: a misspelling, or what a fuzzer sends (Schemathesis
        // sent `/admin/v1/events?%C2%80=` and got the whole list).
        let misspelt = await app.send(.get, "/admin/v1/events?limt=5", headers: TestApp.adminHeaders)
        #expect(misspelt.status == .badRequest)
        #expect(misspelt.text.contains("`limt`") && misspelt.text.contains("it takes limit, status"), "\(misspelt.text)")
        let control = await app.send(.get, "/admin/v1/events?%C2%80=&status=failed", headers: TestApp.adminHeaders)
        #expect(control.status == .badRequest && control.text.contains("\\u{80}"), "\(control.text)")
        #expect(await app.send(.get, "/admin/v1/events?status=failed&limit=5", headers: TestApp.adminHeaders).status == .ok)
    }

    @Test("The admin routes' query parameters are the ones openapi.json documents, route by route")
    func queryParametersMatchTheContract() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: PackagePaths.publicDir + "/openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let shared = (document["components"] as? [String: Any])?["parameters"] as? [String: [String: Any]] ?? [:]
        var documented: [String: Set<String>] = [:]
        for (path, operations) in paths where path.hasPrefix("/admin/") {
            for case let operation as [String: Any] in operations.values {
                for case var parameter as [String: Any] in operation["parameters"] as? [Any] ?? [] {
                    if let reference = parameter["$ref"] as? String, let named = shared[String(reference.split(separator: "/").last ?? "")] {
                        parameter = named
                    }
                    guard parameter["in"] as? String == "query", let name = parameter["name"] as? String else { continue }
                    documented[path, default: []].insert(name)
                }
            }
        }
        #expect(documented.count >= 8, "\(documented)")
        #expect(AdminTokenMiddleware.queryParameters == documented)
    }
}
