import Foundation
@testable import Storage
import Synchronization
import Testing

/// How fast `PostgresDatabase`'s async calls reach their pool when many come at once (API.md,
/// "Limits that protect everyone": a webhook storm never turns into 503s, on either backend).
/// Each call blocks a thread for its whole transaction; if those threads came from a pool that
/// grows slowly (libdispatch's global queue adds about one a second once its threads block), a
/// storm's calls would queue for seconds before they even asked for a connection.
@Suite struct PostgresDatabaseConcurrencyTests {
    @Test("16 one-second reads on 17 reader connections all begin within a second, not one after another")
    func concurrentReadsBeginTogether() async throws {
        // 51 connections: 34 writers, 17 readers.
        let (database, _) = try await PostgresDatabaseTests.freshDatabase(maxConnections: 51)
        #expect(database.readerConnections == 17)
        defer { database.close() }
        let clock = ContinuousClock()
        let start = clock.now
        let began = Offsets()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    try await database.read { connection in
                        began.record(clock.now - start)
                        try connection.execute("SELECT pg_sleep(1)")
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = clock.now - start
        let last = began.latest
        // Each begins once its thread has opened its connection (a SCRAM login): well under a
        // second even on a busy machine. One thread after another would take 16 s.
        #expect(last < .seconds(1), "the last read began \(last) after the first was asked for")
        #expect(elapsed < .seconds(3), "16 one-second reads in parallel took \(elapsed)")
    }
}

/// When each call began, from many threads.
private final class Offsets: Sendable {
    private let offsets = Mutex<[Duration]>([])

    func record(_ offset: Duration) { offsets.withLock { $0.append(offset) } }

    var latest: Duration { offsets.withLock { $0.max() ?? .zero } }
}
