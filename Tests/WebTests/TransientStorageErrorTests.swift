import Foundation
import HTTPCore
import HTTPRouting
import Storage
import Templating
import Testing
import UseCases

@testable import Web

/// A storage failure a retry may cure (a write that kept losing conflicts, a wait that timed
/// out) is a retryable `503` with `Retry-After`, on the API and on pages: a redemption that lost
/// ten serialization races in a row under load used to answer `500 internal`, which tells the
/// app not to retry. Every other storage failure stays a bare `500`.
@Suite("Transient storage failures at the HTTP boundary")
struct TransientStorageErrorTests {
    static func errors() throws -> ErrorResponses {
        ErrorResponses(
            pages: Pages(templates: try ShippedTemplates.shared, appName: "Example", baseURL: "https://pay.example.com")
        )
    }

    static func answer(_ error: StorageError, path: String) throws -> HTTPResponse {
        let request = HTTPRequest(method: .post, target: path)
        let context = RequestContext(requestId: "r", logger: .disabled, remoteAddress: "198.51.100.7")
        return try errors().response(for: error, request: request, context: context)
    }

    @Test(
        "Conflicts past their retries, lock and pool timeouts, SQLite busy: 503 upstream_unavailable, retryable, Retry-After 1",
        arguments: [
            StorageError(sqlState: "40001", message: "could not serialize access"),
            StorageError(sqlState: "40P01", message: "deadlock detected"),
            StorageError(sqlState: "55P03", message: "lock timeout"),
            StorageError(sqlState: "57014", message: "timed out"),
            StorageError(resultCode: 5, message: "database is locked")
        ])
    func transient(_ error: StorageError) async throws {
        let api = try Self.answer(error, path: "/api/v1/redeem")
        #expect(api.status.code == 503)
        #expect(api.headers["Retry-After"] == "1")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(api.body)) as? [String: [String: Any]])
        #expect(body["error"]?["code"] as? String == "upstream_unavailable")
        #expect(body["error"]?["retryable"] as? Bool == true)
        let page = try Self.answer(error, path: "/checkout/success")
        #expect(page.status.code == 503)
        #expect(page.headers["Retry-After"] == "1")
    }

    @Test("A unique violation or a broken constraint that escaped is still a bare 500", arguments: ["23505", "23503", "42P01"])
    func notTransient(_ state: String) async throws {
        let api = try Self.answer(StorageError(sqlState: state, message: "x"), path: "/api/v1/redeem")
        #expect(api.status.code == 500)
        #expect(String(decoding: api.body, as: UTF8.self).contains("\"internal\""))
    }
}
