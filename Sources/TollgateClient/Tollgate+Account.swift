import Foundation

/// The signed-in account's own data: deleting it (App Store Review Guideline 5.1.1(v)) and
/// downloading what the service holds about it (`DELETE /api/v1/account`,
/// `GET /api/v1/account/export`).
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
extension Tollgate {
    /// Deletes the signed-in account on the service, then forgets the session. Safe to call
    /// again after a lost answer: the service answers a repeat as the first call.
    /// - Throws: `TollgateClientError` (`not_signed_in` without a session).
    public func deleteAccount() async throws {
        guard try await storage.load() != nil else { throw TollgateClientError.notSignedIn }
        _ = try await send(APIRequest(method: "DELETE", path: "/api/v1/account"))
        try await signOut()
    }

    /// The signed-in account's data export: the JSON document the service sends, to save or share
    /// as the user's file.
    /// - Throws: `TollgateClientError` (`not_signed_in` without a session).
    public func exportAccountData() async throws -> Data {
        guard try await storage.load() != nil else { throw TollgateClientError.notSignedIn }
        return try await send(APIRequest(method: "GET", path: "/api/v1/account/export")).body
    }
}
