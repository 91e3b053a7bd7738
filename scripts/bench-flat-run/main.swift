// Does the database stay flat under steady redemptions once retention has caught up?
// Run through `scripts/bench --flat N` (scripts/bench-flat).
//
// The whole service (TollgateApp: routes, middleware, the redemption use case, a SQLite file in
// WAL mode) answers N repeat redemptions of SEED seeded codes in process (no sockets: this
// measures storage, not HTTP), while a virtual clock runs DAYS days across them. Each redemption
// adds a session, as in the app; sessions expire with their refresh token (60 days) and
// retention deletes them `retention.sessions_days` (1 here) later, so after ~61 virtual days the
// sessions table should stop growing, and with it the file. The retention pass runs every
// SWEEP_EVERY redemptions with the service's own `RetentionWorker` (its batches and pauses).
//
// Prints one line per 5% of the run: redemptions, virtual day, sessions held, the database
// file's and the WAL's bytes, free pages, and the redemption rate; then the growth over the second half.
// Usage: BenchFlat N [--days DAYS] [--seed SEED] [--sweep-every K] [--workers W] [--keep DIR]
import App
import Configuration
import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Logging
import Storage
import Synchronization

struct Options {
    var redemptions = 1_000_000
    var days = 200.0
    var seed = 1_000
    var sweepEvery = 1_000
    var workers = 4
    var keep: String?

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        if let first = rest.first, let count = Int(first) { redemptions = count; rest = rest.dropFirst() }
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { Self.usage() }
            switch flag {
            case "--days": days = Double(value) ?? { Self.usage() }()
            case "--seed": seed = Int(value) ?? { Self.usage() }()
            case "--sweep-every": sweepEvery = Int(value) ?? { Self.usage() }()
            case "--workers": workers = Int(value) ?? { Self.usage() }()
            case "--keep": keep = value
            default: Self.usage()
            }
        }
        guard redemptions > 0, days > 0, seed > 0, sweepEvery > 0, workers > 0 else { Self.usage() }
    }

    static func usage() -> Never {
        FileHandle.standardError.write(Data("usage: BenchFlat N [--days DAYS] [--seed SEED] [--sweep-every K] [--workers W] [--keep DIR]\n".utf8))
        exit(64)
    }
}

/// Time as the run sees it: `start` plus `step` per redemption taken so far.
final class VirtualClock: Sendable {
    let start: Date
    let step: TimeInterval
    private let taken = Atomic<Int>(0)

    init(start: Date, step: TimeInterval) {
        self.start = start
        self.step = step
    }

    /// Takes the next redemption's number; the clock moves on by one step.
    func next() -> Int { taken.wrappingAdd(1, ordering: .relaxed).oldValue }

    var now: Date { start.addingTimeInterval(Double(taken.load(ordering: .relaxed)) * step) }
}

let options = Options(CommandLine.arguments)
let directory = options.keep ?? (NSTemporaryDirectory() + "tollgate-bench-flat-" + UUID().uuidString)
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
let databasePath = directory + "/flat.sqlite"
for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
let root = FileManager.default.currentDirectoryPath
let configJSON: [String: Any] = [
    "base_url": "http://127.0.0.1:8080",
    "listen": ["host": "127.0.0.1", "port": 0],
    "database": ["path": databasePath],
    "secret_key": "bench-flat-secret-key-0123456789abcdef0123",
    "app": ["name": "Bench", "scheme": "benchapp"],
    "api_keys": ["public": ["pk_bench"]],
    "entitlements": ["premium": ["price_bench"]],
    "mail": ["transport": "file", "file_dir": directory + "/mail", "from": "Bench <no-reply@example.com>"],
    "paths": ["templates_dir": root + "/templates", "public_dir": root + "/Public"],
    "retention": ["sessions_days": 1],
]
try JSONSerialization.data(withJSONObject: configJSON).write(to: URL(fileURLWithPath: directory + "/config.json"))
let config = try ConfigLoader.load(path: directory + "/config.json", environment: [:])
let clock = VirtualClock(start: Date(), step: options.days * 86400 / Double(options.redemptions))
let app = try TollgateApp(config: config, logger: .disabled, now: { clock.now })

// SEED paid purchases, each with a code that outlives the run; the first round of redemptions
// redeems each by its own app user, and every later one is a repeat.
let vault = try CodeVault(secrets: app.essentials.secrets)
let lifetime = (options.days + 30) * 86400
let codes = try await app.database.write { connection -> [String] in
    let now = clock.now
    return try (0..<options.seed).map { index in
        let purchase = try PurchaseRepository.apply(
            PurchaseSnapshot(
                platform: .stripe, externalID: "sub_flat_\(index)", productID: "price_bench", status: .active,
                expiresAt: now.addingTimeInterval(lifetime), observedAt: now, purchaserEmail: "flat\(index)@example.com"),
            on: connection, now: now
        ).purchase
        return try CodeRepository.issue(purchaseID: purchase.id, ttl: lifetime, vault: vault, on: connection, now: now).code.display
    }
}

/// Work left in a batch and failures seen, shared by its workers.
final class Tally: Sendable {
    let left: Atomic<Int>
    let failures = Atomic<Int>(0)

    init(_ count: Int) { left = Atomic(count) }
}

/// Sends redemptions through the service's responder, as the server would after reading them.
struct Redeemer: Sendable {
    let app: TollgateApp
    let codes: [String]
    let clock: VirtualClock

    /// Answers `count` redemptions, `workers` at a time, each a clock step later; returns how many
    /// were not 200.
    func redeem(count: Int, workers: Int) async -> Int {
        let tally = Tally(count)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<workers {
                group.addTask {
                    while tally.left.subtract(1, ordering: .relaxed).newValue >= 0 {
                        if await redeem(clock.next()) != 200 { tally.failures.add(1, ordering: .relaxed) }
                    }
                }
            }
        }
        return tally.failures.load(ordering: .relaxed)
    }

    private func redeem(_ index: Int) async -> Int {
        let slot = index % codes.count
        let body = #"{"code":"\#(codes[slot])","app_user_id":"flat-user-\#(slot)","device_id":"d-\#(slot)"}"#
        let headers: HTTPHeaders = ["Content-Type": "application/json", "X-Api-Key": "pk_bench"]
        let request = HTTPRequest(method: .post, target: "/api/v1/redeem", headers: headers, body: Array(body.utf8))
        let context = RequestContext(requestId: "flat-\(index)", logger: .disabled, remoteAddress: "192.0.2.1")
        return await app.responder.respond(to: request, context: context).status.code
    }
}

struct Sample {
    let redemptions: Int
    let bytes: Int
}

func fileBytes(_ suffix: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: databasePath + suffix)[.size] as? Int) ?? 0
}

func figures() async throws -> (sessions: Int, freePages: Int) {
    try await app.database.read { connection in
        (try connection.queryOne("SELECT COUNT(*) AS n FROM sessions")?.int("n") ?? 0,
         try connection.queryOne("PRAGMA freelist_count")?.int("freelist_count") ?? 0)
    }
}

let report = max(1, options.redemptions / 20)
let redeemer = Redeemer(app: app, codes: codes, clock: clock)
var failures = 0
var samples: [Sample] = []
var deleted = 0
let started = ContinuousClock.now
var lastReport = (at: started, redemptions: 0)
print("redemptions  virtual_day  sessions  file_bytes  wal_bytes  free_pages  redemptions_per_s")
var done = 0
var nextReport = report
while done < options.redemptions {
    let chunk = min(options.sweepEvery, options.redemptions - done)
    failures += await redeemer.redeem(count: chunk, workers: options.workers)
    done += chunk
    deleted += await app.workers.retention.sweep().values.reduce(0, +)
    if done >= nextReport || done == options.redemptions {
        nextReport += report
        let (sessions, freePages) = try await figures()
        let (file, wal) = (fileBytes(""), fileBytes("-wal"))
        let bytes = file + wal
        let now = ContinuousClock.now
        let elapsed = now - lastReport.at
        let rate = Double(done - lastReport.redemptions) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        lastReport = (now, done)
        samples.append(Sample(redemptions: done, bytes: bytes))
        let day = clock.now.timeIntervalSince(clock.start) / 86400
        print(String(format: "%11d  %11.1f  %8d  %10d  %9d  %10d  %17.0f", done, day, sessions, file, wal, freePages, rate))
    }
}
let half = samples.first { $0.redemptions >= options.redemptions / 2 } ?? samples[0]
let last = samples[samples.count - 1]
let peak = samples.map(\.bytes).max() ?? 0
print(String(
    format: "flat: %d bytes at %d redemptions, %d at %d (%+.1f%% over the second half), peak %d; retention deleted %d rows; non-200 answers: %d",
    half.bytes, half.redemptions, last.bytes, last.redemptions, Double(last.bytes - half.bytes) * 100 / Double(max(1, half.bytes)),
    peak, deleted, failures))
app.database.close()
if options.keep == nil { try? FileManager.default.removeItem(atPath: directory) }
