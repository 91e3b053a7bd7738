import Domain
import Foundation
import JSON
import Testing
import TestSupport

@testable import App
@testable import Web

/// Issue 44, item 3, delivered: an endpoint whose `secret` is a list signs each delivery once per
/// secret, so a receiver that holds either one (before or after its own roll) verifies it.
@Suite("Events: an endpoint's secret list during the receiver's roll")
struct EventSecretRollTests {
    static let oldSecret = EventsTests.secret
    static let newSecret = "whsec_" + Data(repeating: 9, count: 32).base64EncodedString()

    @Test("Receivers holding only the old or only the new secret both verify every delivery signed with [new, old]")
    func bothReceiversVerify() async throws {
        let holdsOld = try FakeEventReceiver(secret: Self.oldSecret)
        let holdsNew = try FakeEventReceiver(secret: Self.newSecret)
        defer {
            Task {
                await holdsOld.stop(); await holdsNew.stop()
            }
        }
        let endpoints = [holdsOld, holdsNew].map { ["url": $0.url, "secret": [Self.newSecret, Self.oldSecret], "types": ["*"]] as [String: Any] }
        let app = try TestApp(extra: ["events": ["endpoints": endpoints]])
        let queued = try await app.app.database.write { connection in
            let account = try AccountRepository.findOrCreate(appUserID: "roll-1", secrets: app.app.essentials.secrets, on: connection, now: Date()).0
            return try app.app.useCases.events.record(
                .accountCreated, accountID: account.id, scope: "account:" + account.id, data: ["account_id": .string(account.id)],
                on: connection, now: Date())
                ?? ""
        }
        await EventsTests.delivering(app) {
            for receiver in [holdsOld, holdsNew] {
                let arrived = await receiver.wait { received in received.contains { request in request.webhookID == queued } }
                #expect(arrived)
                #expect(receiver.received.allSatisfy { $0.verified }, "a receiver with one of the two secrets verifies")
            }
        }
        // A receiver holding neither refuses it: the signatures are the secrets', not any.
        let stranger = try FakeEventReceiver(secret: "whsec_" + Data(repeating: 3, count: 32).base64EncodedString())
        defer { Task { await stranger.stop() } }
        let other = try TestApp(extra: ["events": ["endpoints": [["url": stranger.url, "secret": [Self.newSecret, Self.oldSecret]]]]])
        _ = try await other.app.database.write { connection in
            let account = try AccountRepository.findOrCreate(appUserID: "roll-2", secrets: other.app.essentials.secrets, on: connection, now: Date())
                .0
            return try other.app.useCases.events.record(
                .accountCreated, accountID: account.id, scope: "account:" + account.id, data: ["account_id": .string(account.id)],
                on: connection, now: Date())
        }
        await EventsTests.delivering(other) {
            let arrived = await stranger.wait { received in !received.isEmpty }
            #expect(arrived)
            #expect(stranger.received.allSatisfy { !$0.verified })
        }
    }
}
