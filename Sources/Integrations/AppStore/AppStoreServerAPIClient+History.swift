import Crypto
import Foundation
import JSON

extension AppStoreServerAPIClient {
    /// The host Get Notification History asks: the deployment's own environment (production
    /// for `Production`; the sandbox otherwise: Xcode and LocalTesting have no server).
    var notificationHistoryEnvironment: AppStoreEnvironment { verifier.environment == .production ? .production : .sandbox }

    /// One page of the notifications the App Store sent between `startDate` and `endDate`, read
    /// with Get Notification History: `POST /inApps/v1/notifications/history` (with
    /// `?paginationToken=` for a next page) and the JSON body `{"startDate": ms, "endDate": ms}`
    /// (Apple keeps 180 days), on the host of the deployment's environment.
    ///
    /// The signed payloads are returned as sent; the caller verifies them like pushed
    /// notifications (`AppStoreSignedDataVerifier.verifyNotification`).
    /// - Throws: `AppStoreError.api` (`.requestRejected`) for Apple's 4xx, with its `errorCode` (a start
    ///   date more than 180 days back 4000012, a start not before the end 4000013, an invalid
    ///   pagination token 4000014, an invalid start or end date 4000015 / 4000016); `AppStoreError.configuration`
    ///   (401); `UpstreamError` (unreachable, 429, 5xx, unreadable).
    public func notificationHistory(startDate: Date, endDate: Date, paginationToken: String?) async throws -> AppStoreNotificationHistoryPage {
        let environment = notificationHistoryEnvironment
        var path = "/inApps/v1/notifications/history"
        if let paginationToken {
            path += "?paginationToken=" + (paginationToken.addingPercentEncoding(withAllowedCharacters: Self.queryValueCharacters) ?? "")
        }
        let body = JSONValue.object([
            ("startDate", .integer(Self.milliseconds(startDate))), ("endDate", .integer(Self.milliseconds(endDate)))
        ]).serialized()
        let response = try await send(
            "POST", environment == .production ? productionBaseURL : sandboxBaseURL, path: path, body: body, environment: environment)
        guard response.status == 200 else { try Self.throwForStatus(response, environment: environment) }
        struct Item: Decodable { let signedPayload: String? }
        struct Answer: Decodable {
            let notificationHistory: [Item]?
            let hasMore: Bool?
            let paginationToken: String?
        }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(response.body)) else {
            throw UpstreamError(
                service: "app_store", kind: .invalidResponse,
                message: "\(environment.rawValue) notification history answer is not a NotificationHistoryResponse")
        }
        return AppStoreNotificationHistoryPage(
            signedPayloads: (answer.notificationHistory ?? []).compactMap(\.signedPayload), hasMore: answer.hasMore ?? false,
            paginationToken: answer.paginationToken)
    }

    /// Unix milliseconds, as the App Store writes dates.
    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// Characters left as they are in a query value.
    private static let queryValueCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
}
