import Foundation
import Storage
import Synchronization
import Testing
import TestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Two `tollgate serve` processes on one PostgreSQL database (API.md "Storage backends"): a
/// webhook storm and concurrent redemptions sent to both, one of them killed with SIGKILL in the
/// middle, still make one purchase, one code and one email per checkout session.
///
/// Runs where the suites run on PostgreSQL (`scripts/test-postgres`, which `.ci/run` calls);
/// SQLite is one process by design, so there is nothing to run there.
@Suite("Two instances on one PostgreSQL database", .enabled(if: TestDatabaseBackend.isPostgres, "needs POSTGRES_TEST_URL: scripts/test-postgres"))
struct TwoInstancesTests {
    static let webhookSecret = "whsec_two_instances"
    static let sessions = 40

    /// One instance: its directory (config, mail) and its process.
    struct Instance {
        let directory: TemporaryDirectory
        let config: String
        var process: ChildProcess
        var port: Int

        /// The messages written (`<outbox id>.eml`); a kill mid-write may leave a hidden
        /// `.<id>.eml.tmp` beside them, which is no message.
        var mailFiles: Set<String> {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path + "/mail")) ?? []
            return Set(names.filter { $0.hasSuffix(".eml") && !$0.hasPrefix(".") })
        }
    }

    /// - Parameter extra: top-level configuration members added (`redemption`, ...).
    static func start(url: String, stripe: FakeStripe, extra: [String: Any] = [:]) async throws -> Instance {
        let directory = try TemporaryDirectory()
        var members: [String: Any] = [
            "database": ["url": url, "max_connections": 6],
            "base_url": "https://pay.example.com",
            "api_keys": ["public": ["pk_two"]],
            "stripe": ["secret_key": "sk_test_fake_123", "webhook_secret": webhookSecret, "api_base": stripe.baseURL],
            "plans": ["monthly": ["price_id": "price_monthly", "mode": "subscription"]],
            "entitlements": ["premium": ["price_monthly"]],
            "http": ["trusted_proxies": ["127.0.0.1/32"]]
        ]
        for (key, value) in extra { members[key] = value }
        let config = try directory.writeConfig(members)
        let (process, port) = try await ServeTests.startServer(["serve", "--config", config])
        return Instance(directory: directory, config: config, process: process, port: port)
    }

    @Test("A webhook storm and redemptions on both, one killed mid-storm: one purchase, one code, one email per session")
    func stormAcrossInstances() async throws {
        let url = try #require(try TestDatabaseBackend.freshPostgresURL())
        let stripe = try FakeStripe(webhookSecret: Self.webhookSecret, knownPrices: ["price_monthly"])
        var a = try await Self.start(url: url, stripe: stripe)
        let b = try await Self.start(url: url, stripe: stripe)
        defer { kill(a.process.pid, SIGKILL); kill(b.process.pid, SIGKILL) }
        let http = LoopbackClient()

        // Checkouts opened on either instance, paid at Stripe.
        var ids: [String] = []
        for index in 0..<Self.sessions {
            let port = index.isMultiple(of: 2) ? a.port : b.port
            let (status, headers, _) = try await http.send(
                "GET", port, "/checkout/start?plan=monthly&app_user_id=user-\(index)&email=buyer\(index)%40example.com")
            #expect(status == 303)
            let location = try #require(headers["Location"] ?? headers["location"])
            ids.append(String(try #require(location.split(separator: "/").last)))
            _ = try stripe.completeSession(id: ids[index], email: "buyer\(index)@example.com", periodEnd: Date().addingTimeInterval(30 * 86400))
        }

        // The storm: each session's event four times, twice to each instance, all at once; A is
        // killed after the first answers. A delivery that fails (A is gone) is retried on B, as
        // Stripe retries: every event ends acknowledged.
        let progress = StormProgress()
        let aPort = a.port, bPort = b.port, aPid = a.process.pid, sessions = Self.sessions
        let events = ids.map { id in
            stripe.webhook(type: "checkout.session.completed", object: stripe.sessionObject(id: id)!, created: Date(), id: "evt_\(id)")
        }
        let statuses = await withTaskGroup(of: Int.self) { group in
            for event in events {
                for copy in 0..<4 {
                    group.addTask {
                        let headers = ["Stripe-Signature": event.signatureHeader, "Content-Type": "application/json"]
                        var status =
                            (try? await http.send("POST", copy < 2 ? aPort : bPort, "/webhooks/stripe", headers: headers, body: event.body).0) ?? 0
                        if status != 200 {
                            status = (try? await http.send("POST", bPort, "/webhooks/stripe", headers: headers, body: event.body).0) ?? 0
                        }
                        if progress.answerAndCheckKill(threshold: sessions) { kill(aPid, SIGKILL) }
                        return status
                    }
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 4 * Self.sessions && statuses.allSatisfy { $0 == 200 }, "\(statuses.filter { $0 != 200 })")
        #expect(try await a.process.finish().status == SIGKILL)

        // A comes back; redemptions go to both at once, each code twice.
        (a.process, a.port) = try await ServeTests.startServer(["serve", "--config", a.config])
        let restartedPort = a.port
        let codes = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for (index, id) in ids.enumerated() {
                group.addTask {
                    let (_, _, page) = try await http.send(
                        "GET", index.isMultiple(of: 2) ? bPort : restartedPort, "/checkout/success?session_id=\(id)")
                    return (index, Browser.code(in: page))
                }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(codes.count == Self.sessions && codes.values.allSatisfy { !$0.isEmpty })
        let redeemed = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, code) in codes {
                for port in [restartedPort, bPort] {
                    group.addTask {
                        let body = try JSONSerialization.data(withJSONObject: ["code": code, "app_user_id": "user-\(index)"])
                        // As the apps do (API.md "Conventions"): a retryable 503 (a write that lost its
                        // conflicts under load) is sent again after its Retry-After.
                        var (status, _, text) = try await http.send(
                            "POST", port, "/api/v1/redeem", headers: ["X-Api-Key": "pk_two", "Content-Type": "application/json"], body: Array(body))
                        for _ in 0..<3 where status == 503 {
                            try await Task.sleep(for: .seconds(1))
                            (status, _, text) = try await http.send(
                                "POST", port, "/api/v1/redeem", headers: ["X-Api-Key": "pk_two", "Content-Type": "application/json"],
                                body: Array(body))
                        }
                        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                        let account = (object?["account"] as? [String: Any])?["id"] as? String
                        return (index, status == 200 ? account ?? "no account" : "HTTP \(status): \(text.prefix(200))")
                    }
                }
            }
            return try await group.reduce(into: [Int: Set<String>]()) { $0[$1.0, default: []].insert($1.1) }
        }
        #expect(
            redeemed.values.allSatisfy { $0.count == 1 && !($0.first ?? "").hasPrefix("HTTP") },
            "each code redeems into one account on both: \(redeemed.values.filter { $0.count != 1 || ($0.first ?? "").hasPrefix("HTTP") })")

        // The database: one purchase, one code, one email per session; nothing half-written.
        let database = try PostgresDatabase(url: url, maxConnections: 2)
        defer { database.close() }
        let counts = try database.readSync { connection in
            [
                "purchases": try connection.queryOne("SELECT count(*) AS n FROM purchases")?.int("n") ?? -1,
                "codes": try connection.queryOne("SELECT count(*) AS n FROM redemption_codes")?.int("n") ?? -1,
                "mail": try connection.queryOne("SELECT count(*) AS n FROM mail_outbox WHERE template = 'redemption_code'")?.int("n") ?? -1,
                "checkouts": try connection.queryOne("SELECT count(*) AS n FROM checkouts WHERE purchase_id IS NOT NULL")?.int("n") ?? -1,
                "events seen": try connection.queryOne("SELECT count(*) AS n FROM webhook_events WHERE source = 'stripe'")?.int("n") ?? -1
            ]
        }
        let n = Self.sessions
        #expect(counts == ["purchases": n, "codes": n, "mail": n, "checkouts": n, "events seen": n])

        // Every email is sent by one of them; only a message in flight at the kill may be sent
        // twice (at least once, the same Message-ID), and then its row says so.
        let sent = try await Self.waitForMail(database, expected: n)
        let files = a.mailFiles.union(b.mailFiles)
        let both = a.mailFiles.intersection(b.mailFiles)
        #expect(sent.delivered == n, "every email sent, by one instance or the other: \(sent)")
        #expect(files.count == n, "one file per outbox row across both instances")
        #expect(both.count <= sent.retried, "a message went out from both without a retry: \(both)")
    }

    /// Waits until every outbox row is sent (what the killed instance had claimed, the other
    /// sends once its 45-second lease runs out: within a minute), or 90 seconds; returns the counts.
    static func waitForMail(_ database: PostgresDatabase, expected: Int) async throws -> (delivered: Int, sending: Int, retried: Int) {
        var result = (delivered: 0, sending: 0, retried: 0)
        for _ in 0..<900 {
            result = try database.readSync { connection in
                (
                    try connection.queryOne("SELECT count(*) AS n FROM mail_outbox WHERE status = 'sent'")?.int("n") ?? 0,
                    try connection.queryOne("SELECT count(*) AS n FROM mail_outbox WHERE status = 'sending'")?.int("n") ?? 0,
                    try connection.queryOne("SELECT count(*) AS n FROM mail_outbox WHERE attempts > 1")?.int("n") ?? 0
                )
            }
            if result.delivered == expected { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return result
    }
}

/// Requests to instances on loopback, redirects handed back instead of followed.
final class LoopbackClient: Sendable {
    private let session: URLSession

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        configuration.httpMaximumConnectionsPerHost = 64
        session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }

    /// Sends one request to 127.0.0.1:`port`; returns the status, the headers and the body.
    func send(_ method: String, _ port: Int, _ path: String, headers: [String: String] = [:], body: [UInt8] = []) async throws
        -> (Int, [String: String], String)
    {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if !body.isEmpty { request.httpBody = Data(body) }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] { fields["\(name)"] = "\(value)" }
        return (http?.statusCode ?? 0, fields, String(decoding: data, as: UTF8.self))
    }
}

/// How many storm requests were answered, and whether the kill was sent (from many tasks).
final class StormProgress: Sendable {
    private let state = Mutex((answered: 0, killed: false))

    /// Counts one answer; true exactly once, when `threshold` answers have come.
    func answerAndCheckKill(threshold: Int) -> Bool {
        state.withLock { state in
            state.answered += 1
            guard state.answered >= threshold, !state.killed else { return false }
            state.killed = true
            return true
        }
    }
}
