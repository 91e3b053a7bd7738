import Foundation
import JSON

/// A client of Apple's External Purchase Server API: Send External Purchase Report
/// (`PUT {base}/v1/reports`) and Retrieve External Purchase Report
/// (`GET {base}/v1/reports/{requestIdentifier}`), where `{base}` is
/// `https://api.storekit.apple.com/externalPurchase` (production) or
/// `https://api.storekit-sandbox.apple.com/externalPurchase` (sandbox tokens, whose
/// `externalPurchaseId` begins with `SANDBOX`)
/// (https://developer.apple.com/documentation/externalpurchaseserverapi/send-external-purchase-report).
///
/// Requests carry the App Store Server API's bearer JWT, signed by `api` (the same In-App
/// Purchase key, `aud` `appstoreconnect-v1`, `bid`).
///
/// Resending is safe: Apple answers a report whose `requestIdentifier` it already accepted with
/// `400` and a `DuplicateValueError` (errorCode 1, fieldName `requestIdentifier`); this client
/// then reads the report back and returns `.alreadyReported` when Apple has it for the same token.
public struct ExternalPurchaseReportClient: Sendable {
    /// Apple's production base URL.
    public static let productionBaseURLString = "https://api.storekit.apple.com/externalPurchase"
    /// Apple's sandbox base URL.
    public static let sandboxBaseURLString = "https://api.storekit-sandbox.apple.com/externalPurchase"
    /// Apple's `errorCode` for a value already submitted (`DuplicateValueError`).
    public static let duplicateValueErrorCode = 1
    /// Apple's `errorCode` for a referenced value it does not know (`NotFoundError`).
    public static let notFoundErrorCode = 3

    private let api: AppStoreServerAPIClient
    /// Where production reports go.
    public let productionBaseURL: URL
    /// Where sandbox reports go.
    public let sandboxBaseURL: URL

    /// A client signing with `api`'s key, sending to these base URLs (Apple's unless a test says otherwise).
    public init(api: AppStoreServerAPIClient, productionBaseURL: URL, sandboxBaseURL: URL) {
        self.api = api
        self.productionBaseURL = productionBaseURL
        self.sandboxBaseURL = sandboxBaseURL
    }

    /// Sends `report` to the host of its token's environment.
    /// - Returns: `.accepted`, or `.alreadyReported` for a resend of a report Apple accepted.
    /// - Throws: `UpstreamError.report` (`.invalidReport` before sending; `.rejected` for Apple's
    ///   400 with its `errorCode`s, or when the `requestIdentifier` was used for another token);
    ///   `AppStoreError.configuration` for 401 (the key) or 404 (the base URL); `UpstreamError`
    ///   (service `app_store`) when unreachable, 429, 5xx or unreadable (retry later, same report).
    public func send(_ report: ExternalPurchaseReport) async throws -> ExternalPurchaseReportOutcome {
        let body = try report.body()
        let environment: AppStoreEnvironment = report.isSandbox ? .sandbox : .production
        let response = try await api.send(
            "PUT", report.isSandbox ? sandboxBaseURL : productionBaseURL, path: "/v1/reports", body: body, environment: environment)
        switch response.status {
        case 200:
            struct Answer: Decodable { let requestIdentifier: String }
            guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(response.body)),
                answer.requestIdentifier.lowercased() == report.requestIdentifierString
            else {
                throw UpstreamError(
                    service: "app_store", kind: .invalidResponse,
                    message: "External Purchase Server API (\(environment.rawValue)) answered 200 without our requestIdentifier")
            }
            return .accepted
        case 400:
            let rejection = Self.rejection(response, environment: environment, action: "refused the report")
            guard rejection.fieldErrors.contains(where: { $0.errorCode == Self.duplicateValueErrorCode && $0.fieldName == "requestIdentifier" })
            else { throw UpstreamError(report: rejection) }
            guard let stored = try await retrieve(requestIdentifier: report.requestIdentifier, sandbox: report.isSandbox) else {
                throw UpstreamError(report: rejection)
            }
            guard stored.externalPurchaseID == report.externalPurchaseID else {
                throw UpstreamError(
                    report: .init(
                        kind: .rejected, service: "app_store", httpStatus: 400, code: String(Self.duplicateValueErrorCode),
                        message: "requestIdentifier \(report.requestIdentifierString) was already used for another token; each report needs its own"))
            }
            return .alreadyReported(stored)
        default:
            throw Self.failure(response, environment: environment, action: "refused the report")
        }
    }

    /// Reads back the report Apple accepted with `requestIdentifier`.
    /// - Parameter sandbox: whether the report's token is a sandbox token.
    /// - Returns: nil when Apple has no such report (400 `NotFoundError`).
    /// - Throws: as `send(_:)`.
    public func retrieve(requestIdentifier: UUID, sandbox: Bool) async throws -> RetrievedExternalPurchaseReport? {
        let environment: AppStoreEnvironment = sandbox ? .sandbox : .production
        let id = requestIdentifier.uuidString.lowercased()
        let response = try await api.send(
            "GET", sandbox ? sandboxBaseURL : productionBaseURL, path: "/v1/reports/\(id)", body: nil, environment: environment)
        switch response.status {
        case 200:
            guard let answer = GoogleJSON.object(response.body), let report = answer["report"]?.objectValue,
                let requestIdentifier = report["requestIdentifier"]?.stringValue, let purchaseID = report["externalPurchaseId"]?.stringValue,
                let status = report["status"]?.stringValue
            else {
                throw UpstreamError(
                    service: "app_store", kind: .invalidResponse,
                    message: "External Purchase Server API (\(environment.rawValue)) answered 200 without a report")
            }
            let items = (report["lineItems"]?.arrayElements ?? []).compactMap { $0["lineItemId"]?.stringValue }
            return RetrievedExternalPurchaseReport(
                requestIdentifier: requestIdentifier, externalPurchaseID: purchaseID, status: status, lineItemIDs: items,
                json: report.keysSorted.serialized())
        case 400:
            let rejection = Self.rejection(response, environment: environment, action: "refused to read the report")
            if rejection.code == String(Self.notFoundErrorCode) || rejection.fieldErrors.contains(where: { $0.errorCode == Self.notFoundErrorCode }) {
                return nil
            }
            throw UpstreamError(report: rejection)
        default:
            throw Self.failure(response, environment: environment, action: "refused to read the report")
        }
    }

    /// The error an answer other than 200 and 400 stands for.
    private static func failure(_ response: OutboundResponse, environment: AppStoreEnvironment, action: String) -> any Error {
        switch response.status {
        case 401:
            return AppStoreError.configuration(
                .init(
                    "the External Purchase Server API (\(environment.rawValue)) rejected our token (401): check apple.api.issuer_id, key_id, the .p8 private key and the app's bundle id"
                ))
        case 404:
            return AppStoreError.configuration(
                .init(
                    "the External Purchase Server API (\(environment.rawValue)) base URL answered 404: it must end in /externalPurchase"))
        case 429, 500...599:
            return UpstreamError(
                service: "app_store", kind: .badStatus(response.status),
                message: "External Purchase Server API (\(environment.rawValue)) answered \(response.status)")
        case 400...499:
            return UpstreamError(report: rejection(response, environment: environment, action: action))
        default:
            return UpstreamError(
                service: "app_store", kind: .badStatus(response.status),
                message: "External Purchase Server API (\(environment.rawValue)) answered an unexpected \(response.status)")
        }
    }

    /// Apple's refusal: a `SendReportErrorResponse` (`errors[]`) or a single `{errorCode, errorMessage}`.
    private static func rejection(_ response: OutboundResponse, environment: AppStoreEnvironment, action: String) -> UpstreamError.Report {
        let object = GoogleJSON.object(response.body)
        let fieldErrors = (object?["errors"]?.arrayElements ?? []).map { error in
            UpstreamError.Report.FieldError(
                errorCode: error["errorCode"]?.intOrDecimal ?? 0, errorMessage: String((error["errorMessage"]?.stringValue ?? "").prefix(300)),
                fieldName: error["fieldName"]?.stringValue.map { String($0.prefix(80)) },
                lineItemID: error["lineItemId"]?.stringValue.map { String($0.prefix(128)) })
        }
        let code = object?["errorCode"]?.intOrDecimal.map(String.init) ?? fieldErrors.first.map { String($0.errorCode) }
        let detail = object?["errorMessage"]?.stringValue.map { ": " + $0.prefix(300) } ?? ""
        return UpstreamError.Report(
            kind: .rejected, service: "app_store", httpStatus: response.status, code: code,
            message: "the External Purchase Server API (\(environment.rawValue)) \(action) (\(response.status))\(detail)",
            fieldErrors: fieldErrors)
    }
}
