import Crypto
import Domain
import Foundation
import Storage
import Testing

@Suite("Sessions: tokens that name their row")
struct SessionRepositoryTests {
    static func account(_ db: TestDatabase, _ appUserID: String = "user-1") throws -> String {
        try db.write { try AccountRepository.findOrCreate(appUserID: appUserID, secrets: Fixtures.secrets, on: $0, now: Fixtures.t0).0.id }
    }

    @Test("A token signs in only with its own secret, until it expires or is revoked; the database keeps hashes")
    func authenticate() throws {
        let db = try TestDatabase()
        let accountID = try Self.account(db)
        let now = Fixtures.t0
        let tokens = try db.write { try SessionRepository.issue(accountID: accountID, deviceID: "d1", on: $0, now: now) }
        #expect(try db.write { try SessionRepository.authenticate(accessToken: tokens.accessToken, on: $0, now: now) } == accountID)

        let (id, secret) = try #require(Self.split(tokens.accessToken))
        let forged = id + "." + Base64URL.encode(try SecureRandom.bytes(count: 32))
        for refused in [forged, tokens.refreshToken, id, id + ".", "ses_unknown." + secret, secret, String(repeating: "a", count: 500)] {
            #expect(try db.write { try SessionRepository.authenticate(accessToken: refused, on: $0, now: now) } == nil, "\(refused)")
        }
        let later = now.addingTimeInterval(SessionRepository.accessLifetime + 1)
        #expect(try db.write { try SessionRepository.authenticate(accessToken: tokens.accessToken, on: $0, now: later) } == nil)

        let stored = try #require(try db.write { try $0.queryOne("SELECT * FROM sessions WHERE id = ?", [id]) })
        #expect(try stored.blob("access_secret_hash") == SHA256.hash(Array(secret.utf8)))
        for column in ["access_secret_hash", "refresh_secret_hash", "family_id", "device_id"] {
            let text = String(decoding: (try? stored.blob(column)) ?? Array(((try? stored.string(column)) ?? "").utf8), as: UTF8.self)
            #expect(!text.contains(secret))
        }

        try db.write { try SessionRepository.revoke(accountID: accountID, deviceID: "d1", on: $0, now: now) }
        #expect(try db.write { try SessionRepository.authenticate(accessToken: tokens.accessToken, on: $0, now: now) } == nil)
    }

    @Test("A session issued with the generations read before a sign-out does not sign in; with the current ones it does")
    func generationsReadEarlier() throws {
        let db = try TestDatabase()
        let accountID = try Self.account(db)
        let now = Fixtures.t0
        // The generations as a caller reads them before deciding: a new account, a device never seen.
        let read = SessionRepository.Generations(
            account: try db.write {
                try $0.queryOne("SELECT session_generation FROM accounts WHERE id = ?", [accountID])?.int64("session_generation")
            }
                ?? -1, device: 0)
        #expect(read.account == 0)
        // Signed out everywhere, then on this device, between the read and the insert.
        try db.write {
            try SessionRepository.revokeAll(accountID: accountID, on: $0)
            try SessionRepository.revoke(accountID: accountID, deviceID: "d1", on: $0, now: now)
        }
        for (generations, signsIn) in [
            (read, false), (SessionRepository.Generations(account: 1, device: 0), false), (.init(account: 1, device: 1), true)
        ] {
            let tokens = try db.write {
                try SessionRepository.issue(
                    SessionRepository.draft(at: now), accountID: accountID, deviceID: "d1", generations: generations, on: $0, now: now)
            }
            let account = try db.write { try SessionRepository.authenticate(accessToken: tokens.accessToken, on: $0, now: now) }
            #expect((account == accountID) == signsIn, "\(generations)")
        }
    }

    @Test("Refresh rotates the pair; a reused refresh token revokes its family and no other session")
    func refreshFamilies() throws {
        let db = try TestDatabase()
        let accountID = try Self.account(db)
        let now = Fixtures.t0
        let first = try db.write { try SessionRepository.issue(accountID: accountID, deviceID: "d1", on: $0, now: now) }
        let other = try db.write { try SessionRepository.issue(accountID: accountID, deviceID: "d2", on: $0, now: now) }
        let rotated = try db.write { try SessionRepository.refresh(first.refreshToken, on: $0, now: now.addingTimeInterval(60)) }.tokens()
        #expect(rotated.accountID == accountID && rotated.accessToken != first.accessToken)
        #expect(try db.write { try SessionRepository.authenticate(accessToken: first.accessToken, on: $0, now: now) } == nil)
        #expect(try db.write { try SessionRepository.authenticate(accessToken: rotated.accessToken, on: $0, now: now) } == accountID)

        let replay = try db.write { try SessionRepository.refresh(first.refreshToken, on: $0, now: now.addingTimeInterval(120)) }
        #expect(replay == .reused)
        #expect(try db.write { try SessionRepository.authenticate(accessToken: rotated.accessToken, on: $0, now: now) } == nil)
        #expect(try db.write { try SessionRepository.refresh(rotated.refreshToken, on: $0, now: now) } == .invalid)
        #expect(try db.write { try SessionRepository.authenticate(accessToken: other.accessToken, on: $0, now: now) } == accountID)

        let (id, _) = try #require(Self.split(other.refreshToken))
        let forged = id + "." + Base64URL.encode(try SecureRandom.bytes(count: 32))
        #expect(try db.write { try SessionRepository.refresh(forged, on: $0, now: now) } == .invalid)
        #expect(try db.write { try SessionRepository.refresh(other.accessToken, on: $0, now: now) } == .invalid)
        #expect(try db.write { try SessionRepository.authenticate(accessToken: other.accessToken, on: $0, now: now) } == accountID)
    }

    @Test("A refresh token reused anywhere along its family's chain ends the family's live session and no other")
    func reuseAlongTheChain() throws {
        let db = try TestDatabase()
        let accountID = try Self.account(db)
        let now = Fixtures.t0
        let first = try db.write { try SessionRepository.issue(accountID: accountID, deviceID: "d1", on: $0, now: now) }
        let other = try db.write { try SessionRepository.issue(accountID: accountID, deviceID: "d2", on: $0, now: now) }
        var chain = [first]
        for step in 1...3 {
            let next = try db.write {
                try SessionRepository.refresh(chain[chain.count - 1].refreshToken, on: $0, now: now.addingTimeInterval(Double(step) * 60))
            }
            chain.append(try next.tokens())
        }
        let live = chain[3]
        #expect(try db.write { try SessionRepository.authenticate(accessToken: live.accessToken, on: $0, now: now) } == accountID)
        // The second pair's refresh token again, after it was rotated: the live fourth pair goes.
        #expect(try db.write { try SessionRepository.refresh(chain[1].refreshToken, on: $0, now: now.addingTimeInterval(300)) } == .reused)
        #expect(try db.write { try SessionRepository.authenticate(accessToken: live.accessToken, on: $0, now: now) } == nil)
        #expect(try db.write { try SessionRepository.refresh(live.refreshToken, on: $0, now: now) } == .invalid)
        #expect(try db.write { try SessionRepository.authenticate(accessToken: other.accessToken, on: $0, now: now) } == accountID)
    }

    @Test("A session that begins a family adds nothing to the family index; revoking a family reads that index, not the table")
    func familyIndexHoldsOnlyRefreshes() throws {
        let db = try TestDatabase()
        if db.database.dialect == .postgresql {
            // PostgreSQL has no dbstat, and plans a small table by its statistics: the definitions.
            let definitions = try db.write { connection in
                try connection.query("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'sessions' AND schemaname = current_schema()")
                    .map { (try $0.string("indexname"), try $0.string("indexdef")) }
            }
            #expect(!definitions.contains { $0.0 == "sessions_family" })
            #expect(definitions.contains { $0.0 == "sessions_family_continued" && $0.1.hasSuffix("WHERE (family_id <> id)") }, "\(definitions)")
            return
        }
        let accountID = try Self.account(db)
        let now = Fixtures.t0
        let issued = try (0..<50).map { _ in
            try db.write { try SessionRepository.issue(accountID: accountID, deviceID: "d1", on: $0, now: now) }
        }
        let entries = {
            try db.write {
                try $0.queryOne(
                    "SELECT coalesce(sum(ncell), 0) AS n FROM dbstat WHERE name = 'sessions_family_continued' AND pagetype = 'leaf'")?
                    .int64("n")
            }
        }
        #expect(try entries() == 0, "50 new families, none in the index")
        _ = try db.write { try SessionRepository.refresh(issued[0].refreshToken, on: $0, now: now.addingTimeInterval(60)) }.tokens()
        #expect(try entries() == 1, "one refresh, one entry")
        let plan = try db.write { connection in
            try connection.query(
                "EXPLAIN QUERY PLAN UPDATE sessions SET revoked_at = 1 WHERE family_id = ? AND family_id <> id AND revoked_at IS NULL", ["x"]
            ).map { try $0.string("detail") }.joined(separator: "; ")
        }
        #expect(plan.contains("USING INDEX sessions_family_continued"), "\(plan)")
    }

    @Test("Session ids sort by creation time, so new rows append")
    func timeOrdered() throws {
        var previous = ""
        for step in 0..<200 {
            let id = try SessionRepository.draft(at: Fixtures.t0.addingTimeInterval(Double(step) / 100)).id
            #expect(id.count == 4 + 26)
            if step % 2 == 0 { #expect(id > previous) }  // 20 ms apart: strictly later
            if step % 2 == 0 { previous = id }
        }
    }

    @Test("Sessions issued before migration 0250 keep signing in and refresh into new tokens")
    func legacySessions() throws {
        let path = NSTemporaryDirectory() + "tollgate-sessions-" + UUID().uuidString + ".sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let database = try SQLiteDatabase(path: path, readers: 1)
        defer { database.close() }
        let before = DomainMigrations.all.filter { $0.id < "0250" }
        _ = try Migrator(migrations: before).migrate(database)
        // The account as that schema held it (the repository reads today's columns).
        let accountID = "acc_old"
        try database.writeSync {
            try $0.execute(
                "INSERT INTO accounts (id, obfuscated_id, email_verified, created_at, updated_at) VALUES (?, 'obf-old', 0, 0, 0)", [accountID])
        }
        let access = OpaqueTokenPair.make(), refresh = OpaqueTokenPair.make()
        let now = Fixtures.t0
        try database.writeSync {
            try $0.execute(
                """
                INSERT INTO sessions (id, account_id, device_id, family_id, access_token_hash, refresh_token_hash,
                    access_expires_at, refresh_expires_at, created_at) VALUES ('ses_old', ?, 'd1', 'fam_old', ?, ?, ?, ?, ?)
                """,
                [
                    accountID, access.hash, refresh.hash, Timestamp.milliseconds(now) + 3_600_000, Timestamp.milliseconds(now) + 86_400_000,
                    Timestamp.milliseconds(now)
                ])
        }
        #expect(try Migrator(migrations: DomainMigrations.all).migrate(database).starts(with: ["0250_session_selectors", "0260_session_generations"]))

        #expect(try database.writeSync { try SessionRepository.authenticate(accessToken: access.token, on: $0, now: now) } == accountID)
        let rotated = try database.writeSync { try SessionRepository.refresh(refresh.token, on: $0, now: now) }.tokens()
        #expect(rotated.accessToken.hasPrefix("ses_"))
        #expect(try database.writeSync { try SessionRepository.authenticate(accessToken: access.token, on: $0, now: now) } == nil)
        #expect(try database.writeSync { try SessionRepository.authenticate(accessToken: rotated.accessToken, on: $0, now: now) } == accountID)
        // The old refresh token again: a copy is loose, the family (now with new-style tokens) goes.
        #expect(try database.writeSync { try SessionRepository.refresh(refresh.token, on: $0, now: now) } == .reused)
        #expect(try database.writeSync { try SessionRepository.authenticate(accessToken: rotated.accessToken, on: $0, now: now) } == nil)
    }

    @Test("Signing out a device or an account ends its sessions and no others; sessions issued after work")
    func generations() throws {
        let db = try TestDatabase()
        let accountID = try Self.account(db)
        let otherID = try db.write {
            try AccountRepository.findOrCreate(appUserID: "someone-else", secrets: Fixtures.secrets, on: $0, now: Fixtures.t0).0.id
        }
        let now = Fixtures.t0
        let issue = { (account: String, device: String?) throws -> SessionRepository.Tokens in
            try db.write { connection in
                if let device {
                    _ = try DeviceRepository.touch(deviceID: device, appUserID: nil, accountID: account, maxDevices: 5, on: connection, now: now)
                }
                return try SessionRepository.issue(accountID: account, deviceID: device, on: connection, now: now)
            }
        }
        let signsIn = { (tokens: SessionRepository.Tokens) throws -> Bool in
            try db.write { try SessionRepository.authenticate(accessToken: tokens.accessToken, on: $0, now: now) } == tokens.accountID
        }
        let phone = try issue(accountID, "phone"), tablet = try issue(accountID, "tablet"), web = try issue(accountID, nil)
        let elsewhere = try issue(otherID, "phone")
        try db.write { try SessionRepository.revoke(accountID: accountID, deviceID: "phone", on: $0, now: now) }
        #expect(try !signsIn(phone))
        #expect(try signsIn(tablet) && signsIn(web) && signsIn(elsewhere))
        #expect(try db.write { try SessionRepository.refresh(phone.refreshToken, on: $0, now: now) } == .invalid)
        let phoneAgain = try issue(accountID, "phone")
        #expect(try signsIn(phoneAgain))
        #expect(try !signsIn(phone), "signing the device in again does not bring old sessions back")

        try db.write { try SessionRepository.revokeAll(accountID: accountID, on: $0) }
        #expect(try !signsIn(tablet) && !signsIn(web) && !signsIn(phoneAgain))
        #expect(try signsIn(elsewhere))
        #expect(try db.write { try SessionRepository.refresh(web.refreshToken, on: $0, now: now) } == .invalid)
        #expect(try signsIn(issue(accountID, "tablet")))
    }

    static func split(_ token: String) -> (String, String)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}

/// A token as issued before migration 0250: 32 random bytes, stored as hex SHA-256.
private struct OpaqueTokenPair {
    let token: String
    let hash: String

    static func make() -> OpaqueTokenPair {
        let token = try! OpaqueToken.generate()
        return OpaqueTokenPair(token: token, hash: Hex.encode(try! SHA256.hash(Array(token.utf8))))
    }
}

extension SessionRepository.RefreshOutcome {
    /// The rotated pair; fails the test when the token was refused.
    func tokens() throws -> SessionRepository.Tokens {
        guard case .rotated(let tokens) = self else { throw Refused(outcome: self) }
        return tokens
    }

    struct Refused: Error { let outcome: SessionRepository.RefreshOutcome }
}
