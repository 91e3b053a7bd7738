// Seeds a database for scripts/bench: N paid web purchases, each with a live redemption code,
// written exactly as the service writes them. Prints nothing but errors; the codes go to OUT.
// Usage: BenchSeed DATABASE SECRET_KEY COUNT OUT, BenchSeed scale DATABASE SECRET_KEY COUNT OUT SAMPLE
// (accounts, redeemed codes and sessions too), or BenchSeed events CONFIG COUNT (queued events).
import Domain
import Foundation
import Storage
import App
import Configuration
import UseCases
import Web

let arguments = CommandLine.arguments

/// A SQLite file, or the PostgreSQL database of a `postgres://` URL (scripts/bench --postgres).
func openDatabase(_ location: String) throws -> Database {
    if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
        return try PostgresDatabase(url: location, maxConnections: 2)
    }
    return try SQLiteDatabase(path: location, readers: 1)
}
// `BenchSeed events CONFIG COUNT`: queues COUNT events for the endpoints of CONFIG, as flows do.
if arguments.count == 4, arguments[1] == "events", let count = Int(arguments[3]) {
    let services = try UseCaseFactory(try Essentials(config: try ConfigLoader.load(path: arguments[2], environment: [:]), logger: .disabled))
    let now = Date()
    for batch in stride(from: 0, to: count, by: 1000) {
        try services.essentials.database.writeSync { connection in
            for index in batch..<min(batch + 1000, count) {
                let account = "acc_bench_\(index % 1000)"
                try services.events.record(
                    .entitlementsChanged, accountID: account, scope: "account:" + account,
                    data: ["account_id": .string(account), "entitlements": [["id": "premium", "active": true, "expires_at": .null]]],
                    on: connection, now: now)
            }
        }
    }
    services.essentials.database.close()
    exit(0)
}
// `BenchSeed scale DATABASE SECRET_KEY COUNT OUT SAMPLE`: COUNT purchases as a year of use leaves
// them: each redeemed by its app user `bench-user-<i>` on a device, into its own account, with a
// session. OUT gets SAMPLE of them spread evenly over the table, one `CODE bench-user-<i>` a line.
if arguments.count == 7, arguments[1] == "scale", let count = Int(arguments[4]), let sample = Int(arguments[6]), count > 0, sample > 0 {
    let database = try openDatabase(arguments[2])
    _ = try Migrator(migrations: TollgateMigrations.all).migrate(database)
    let secrets = try DomainSecrets(secretKey: arguments[3])
    let vault = try CodeVault(secrets: secrets)
    let now = Date()
    let step = max(1, count / sample)
    var lines: [String] = []
    for batch in stride(from: 0, to: count, by: 10_000) {
        lines += try database.writeSync { connection -> [String] in
            var lines: [String] = []
            for index in batch..<min(batch + 10_000, count) {
                let user = "bench-user-\(index)"
                let purchase = try PurchaseRepository.apply(
                    PurchaseSnapshot(
                        platform: .stripe, externalID: "sub_bench_\(index)", productID: "price_bench", status: .active,
                        expiresAt: now.addingTimeInterval(365 * 86400), observedAt: now, purchaserEmail: "bench\(index)@example.com",
                        customerID: "cus_bench_\(index)"),
                    on: connection, now: now
                ).purchase
                let issued = try CodeRepository.issue(purchaseID: purchase.id, ttl: 30 * 86400, vault: vault, on: connection, now: now)
                let (account, _) = try AccountRepository.findOrCreate(appUserID: user, secrets: secrets, on: connection, now: now)
                try PurchaseRepository.link(purchaseID: purchase.id, to: account.id, on: connection, now: now)
                try CodeRepository.markRedeemed(id: issued.record.id, accountID: account.id, appUserID: user, on: connection, now: now)
                _ = try DeviceRepository.touch(deviceID: "d-" + user, appUserID: user, accountID: account.id, maxDevices: 5, on: connection, now: now)
                _ = try SessionRepository.issue(accountID: account.id, deviceID: "d-" + user, on: connection, now: now)
                if index % step == 0, lines.count < sample { lines.append("\(issued.code.display) \(user)") }
            }
            return lines
        }
    }
    database.close()
    try (lines.prefix(sample).joined(separator: "\n") + "\n").write(toFile: arguments[5], atomically: true, encoding: .utf8)
    exit(0)
}
guard arguments.count == 5, let count = Int(arguments[3]), count > 0 else {
    FileHandle.standardError.write(Data("usage: BenchSeed DATABASE SECRET_KEY COUNT OUT (DATABASE: a SQLite path or a postgres:// URL)\n".utf8))
    exit(64)
}
let database = try openDatabase(arguments[1])
_ = try Migrator(migrations: TollgateMigrations.all).migrate(database)
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
