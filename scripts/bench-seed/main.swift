// Seeds a database for scripts/bench: N paid web purchases, each with a live redemption code,
// written exactly as the service writes them. Prints nothing but errors; the codes go to OUT.
// Usage: BenchSeed DATABASE SECRET_KEY COUNT OUT, or BenchSeed events CONFIG COUNT (queued events).
import Domain
import Foundation
import Storage
import App
import Configuration
import Web

let arguments = CommandLine.arguments
// `BenchSeed events CONFIG COUNT`: queues COUNT events for the endpoints of CONFIG, as flows do.
if arguments.count == 4, arguments[1] == "events", let count = Int(arguments[3]) {
    let app = try TollgateApp(config: try ConfigLoader.load(path: arguments[2], environment: [:]), logger: .disabled)
    let now = Date()
    for batch in stride(from: 0, to: count, by: 1000) {
        try app.database.writeSync { connection in
            for index in batch..<min(batch + 1000, count) {
                let account = "acc_bench_\(index % 1000)"
                try app.events.record(
                    .entitlementsChanged, accountID: account, scope: "account:" + account,
                    data: ["account_id": account, "entitlements": [["id": "premium", "active": true, "expires_at": NSNull()]]],
                    on: connection, now: now)
            }
        }
    }
    app.database.close()
    exit(0)
}
guard arguments.count == 5, let count = Int(arguments[3]), count > 0 else {
    FileHandle.standardError.write(Data("usage: BenchSeed DATABASE SECRET_KEY COUNT OUT\n".utf8))
    exit(64)
}
let database = try SQLiteDatabase(path: arguments[1], readers: 1)
_ = try Migrator(migrations: TollgateApp.migrations).migrate(database)
let secrets = try DomainSecrets(secretKey: arguments[2])
let vault = try CodeVault(secrets: secrets)
let now = Date()
let codes = try database.writeSync { connection -> [String] in
    var codes: [String] = []
    for index in 0..<count {
        let purchase = try PurchaseRepository.apply(
            PurchaseSnapshot(
                platform: .stripe, externalID: "sub_bench_\(index)", productID: "price_bench", status: .active,
                expiresAt: now.addingTimeInterval(365 * 86400), observedAt: now, purchaserEmail: "bench\(index)@example.com"),
            on: connection, now: now
        ).purchase
        codes.append(try CodeRepository.issue(purchaseID: purchase.id, ttl: 30 * 86400, vault: vault, on: connection, now: now).code.display)
    }
    return codes
}
database.close()
try (codes.joined(separator: "\n") + "\n").write(toFile: arguments[4], atomically: true, encoding: .utf8)
