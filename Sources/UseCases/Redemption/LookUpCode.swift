import Crypto
import Domain
import Foundation
import Storage

/// What the emailed link `/redeem/{code}` shows. A look-up only: a GET never consumes or
/// changes a code (mail scanners prefetch links).
public struct LookUpCode: Sendable {
    /// The state of a code as the link page presents it.
    public enum State: Sendable, Equatable {
        /// Unknown, malformed or revoked.
        case unknown
        /// Past its TTL or replaced by a newer code.
        case expired
        /// Live: the page opens the app with it.
        case usable(RedemptionCode)
        /// Redeemed already: it keeps working for the account that redeemed it, so the page
        /// says so and still opens the app.
        case redeemed(RedemptionCode)
    }

    let database: Database
    let vault: CodeVault

    public init(database: Database, vault: CodeVault) {
        self.database = database
        self.vault = vault
    }

    /// - Throws: `StorageError`.
    public func state(of text: String, now: Date) async throws -> State {
        guard let code = RedemptionCode(normalizing: text) else { return .unknown }
        let vault = self.vault
        let record = try await database.read { try CodeRepository.find(code: code, vault: vault, on: $0) }
        guard let record, record.status != .revoked else { return .unknown }
        if record.status == .replaced || (record.status == .live && record.isExpired(at: now)) { return .expired }
        return record.status == .redeemed ? .redeemed(code) : .usable(code)
    }
}
