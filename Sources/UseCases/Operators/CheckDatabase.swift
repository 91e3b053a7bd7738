import Domain
import Foundation
import Mail
import Storage

/// `tollgate check`: whether a database (a restored backup, say) is one this build can serve
/// under the configured key. Three checks, each named in the report: the storage's own integrity
/// (`DatabaseIntegrity`), the schema (every applied migration known to this build; pending ones
/// are what `serve` or `migrate` applies, not a problem), and every sealed value (codes,
/// link-out tokens, mail waiting in the outbox) opening under a listed key (`secret_keys`: the
/// key whose id the value records, or for a value sealed before key ids any listed key).
/// Stored `Idempotency-Key` replies are not read: one that does not open already counts as none
/// and expires within a day.
public struct CheckDatabase: Sendable {
    /// What was found.
    public struct Report: Sendable, Equatable {
        /// Each problem, a sentence naming what is wrong; empty when the database can be served.
        public var problems: [String] = []
        /// What was checked and found right (one line each).
        public var passed: [String] = []

        public init() {}
    }

    let database: Database
    let migrations: [Migration]
    let release: SchemaRelease?
    let secrets: DomainSecrets

    /// - Parameters:
    ///   - migrations: this build's migrations (App's `TollgateMigrations.all`).
    ///   - release: this build's release (App's `TollgateReleases.current`): a schema a newer
    ///     release made that does not let it run beside is a problem.
    ///   - secrets: derived from the configured `secret_keys` (or `secret_key`).
    public init(database: Database, migrations: [Migration], release: SchemaRelease? = nil, secrets: DomainSecrets) {
        self.database = database
        self.migrations = migrations
        self.release = release
        self.secrets = secrets
    }

    /// Runs every check; a check that cannot run is a problem, and the others still run.
    public func run() -> Report {
        var report = Report()
        do {
            let problems = try DatabaseIntegrity.problems(database)
            if problems.isEmpty {
                report.passed.append(database.dialect == .sqlite ? "integrity: ok" : "integrity: checked by PostgreSQL itself")
            }
            report.problems += problems.map { "integrity: \($0)" }
        } catch {
            report.problems.append("integrity: the check could not run: \(error)")
        }
        do {
            let pending = try Migrator(migrations: migrations, release: release).pending(database)
            guard pending.count < migrations.count else {
                report.problems.append("schema: no Tollgate migration is applied: not a Tollgate database, or an empty one")
                return report
            }
            report.passed.append(
                "schema: known to this build"
                    + (pending.isEmpty ? ", up to date" : " (\(pending.count) migration(s) to apply: \(pending.joined(separator: ", ")))"))
        } catch {
            report.problems.append("schema: \(error)")
            return report
        }
        do {
            let codes = try CodeVault(secrets: secrets)
            let tokens = try LinkOutTokenVault(secrets: secrets)
            let mail = OutboxCipher(secrets: secrets)
            let audits: [(SealedRowAudit.Column, (String, SQLValue) -> Bool)] = [
                (.codes, { id, value in if case .blob(let sealed) = value { (try? codes.open(sealed, codeID: id)) != nil } else { false } }),
                (
                    .linkOutTokens,
                    { id, value in if case .blob(let sealed) = value { (try? tokens.open(sealed, tokenID: id)) != nil } else { false } }
                ),
                (.mailParameters, { id, value in if case .text(let stored) = value { mail.opens(stored, outboxID: id) } else { false } })
            ]
            for (column, opens) in audits {
                var count = SealedRowAudit.Count(table: column.table)
                var after: String? = ""
                while let last = after {
                    after = count.add(try database.readSync { try SealedRowAudit.page(column, after: last, on: $0) }, opens: opens)
                }
                if count.unreadable == 0 {
                    report.passed.append("keys: \(count.checked) row(s) of \(count.table) open under the listed keys")
                } else {
                    report.problems.append(
                        "keys: \(count.unreadable) of \(count.checked) row(s) of \(count.table) do not open under any listed key "
                            + "(ids \(count.examples.joined(separator: ", "))): a backup opens only with the keys of its time")
                }
            }
        } catch {
            report.problems.append("keys: the check could not run: \(error)")
        }
        return report
    }
}
