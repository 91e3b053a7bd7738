import Foundation
import HTTPCore
import HTTPRouting
import Synchronization

/// A browser over `TestApp.send`: it keeps the cookies the app sets (and forgets those it
/// deletes), sends them back, and posts forms as `application/x-www-form-urlencoded`.
final class CookieBrowser: Sendable {
    let app: TestApp
    private let jar = Mutex<[String: String]>([:])
    /// Every `Set-Cookie` line received, newest last (to check attributes).
    private let received = Mutex<[String]>([])

    init(_ app: TestApp) { self.app = app }

    /// The cookies held now, by name.
    var cookies: [String: String] { jar.withLock { $0 } }
    /// The newest `Set-Cookie` line for `name`.
    func setCookieLine(_ name: String) -> String? { received.withLock { $0.last { $0.hasPrefix(name + "=") } } }

    func get(_ target: String, headers: HTTPHeaders = [:]) async -> HTTPResponse {
        await send(.get, target, headers: headers, body: "")
    }

    func post(_ target: String, _ fields: [String: String], headers: HTTPHeaders = [:]) async -> HTTPResponse {
        var all = headers
        all.set("Content-Type", "application/x-www-form-urlencoded")
        return await send(.post, target, headers: all, body: Self.encode(fields))
    }

    /// Sends with the jar's cookies and keeps what the answer sets.
    func send(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders, body: String) async -> HTTPResponse {
        var all = headers
        let cookieHeader = jar.withLock { $0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        if !cookieHeader.isEmpty { all.set("Cookie", cookieHeader) }
        let response = await app.send(method, target, headers: all, body: body)
        keep(response)
        return response
    }

    /// Replaces the jar (another device, a stolen cookie, a fresh browser).
    func setCookies(_ cookies: [String: String]) { jar.withLock { $0 = cookies } }

    private func keep(_ response: HTTPResponse) {
        for line in response.headers.values(for: "Set-Cookie") {
            received.withLock { $0.append(line) }
            let first = line.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let equals = first.firstIndex(of: "=") else { continue }
            let name = String(first[..<equals])
            let value = String(first[first.index(after: equals)...])
            let expired = line.lowercased().contains("max-age=0")
            jar.withLock { if expired || value.isEmpty { $0[name] = nil } else { $0[name] = value } }
        }
    }

    /// The first form token (`name="csrf" value="…"`) on a page.
    static func csrf(in page: HTTPResponse) -> String? {
        guard let range = page.text.range(of: #"name="csrf" value="[^"]+""#, options: .regularExpression) else { return nil }
        return String(page.text[range].dropFirst(#"name="csrf" value=""#.count).dropLast())
    }

    static func encode(_ fields: [String: String]) -> String {
        fields.sorted { $0.key < $1.key }.map { FormURLEncoding.encode($0.key) + "=" + FormURLEncoding.encode($0.value) }.joined(separator: "&")
    }
}
