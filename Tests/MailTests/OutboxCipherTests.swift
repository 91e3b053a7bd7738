import Foundation
import Mail
import Storage
import Testing

@Suite("Sealed outbox parameters")
struct OutboxCipherTests {
    static let key = [UInt8](repeating: 7, count: 32)

    @Test("Sealed parameters never show the code in the database, and the worker still sends it")
    func sealedRoundTrip() async throws {
        let database = try makeDatabase()
        let clock = TestClock()
        let cipher = try OutboxCipher(key: Self.key)
        let message = redemptionMessage(key: "sealed-1", code: "ZZ9Q-ZZ9Q-ZZ9Q")
        _ = try await database.write { try Outbox.enqueue(message, on: $0, now: clock.now, cipher: cipher) }
        let stored = try await database.read { try $0.queryOne("SELECT parameters FROM mail_outbox")?.string("parameters") }
        #expect(stored?.hasPrefix("sealed:v1:") == true)
        #expect(stored?.contains("ZZ9Q") == false)

        let transport = RecordingTransport()
        let worker = OutboxWorker(
            database: database, transport: transport, composer: try makeComposer(),
            configuration: OutboxWorkerConfiguration(retryPolicy: OutboxRetryPolicy(jitter: 0), cipher: cipher), now: clock.function)
        await worker.runOnce()
        let sent = try #require(transport.sent.first)
        #expect(String(decoding: try sent.rendered(), as: UTF8.self).contains("ZZ9Q"))
    }

    @Test("Without the key a sealed message fails permanently instead of sending garbage")
    func missingKey() async throws {
        let database = try makeDatabase()
        let clock = TestClock()
        _ = try await database.write {
            try Outbox.enqueue(redemptionMessage(key: "sealed-2"), on: $0, now: clock.now, cipher: try OutboxCipher(key: Self.key))
        }
        let transport = RecordingTransport()
        await (try makeWorker(database, transport: transport, clock: clock)).runOnce()
        #expect(transport.sent.isEmpty)
        let entries = try await OutboxStore(database: database).outboxEntries(status: .failed, limit: 10)
        #expect(entries.count == 1)
        #expect(entries.first?.lastError?.contains("no outbox key") == true)
    }

    @Test("A key of the wrong size is refused")
    func wrongKeySize() {
        #expect(throws: MailError.self) { _ = try OutboxCipher(key: [1, 2, 3]) }
    }
}
