import Foundation

extension StripeClient {
    /// Sends `request` and maps the answer: 2xx → decoded object; 4xx with Stripe's error body →
    /// `StripeError.api`; 429, 5xx, other statuses, transport failures and unreadable bodies →
    /// `UpstreamError(service: "stripe")`.
    func perform<Object: Decodable>(_ request: OutboundRequest, path: String, decoding: Object.Type, what: String) async throws -> Object {
        let label = "\(request.method) \(Self.redacted(path))"
        let body = try await performBytes(request, path: path)
        do {
            return try StripeJSON.decode(Object.self, from: body, what: what)
        } catch StripeError.decoding(let error) {
            throw UpstreamError(
                service: "stripe", kind: .invalidResponse, message: "\(label): Stripe answered with an unreadable \(what): \(error.reason)")
        }
    }

    /// Sends `request` and returns a 2xx answer's body; the same error mapping as `perform`.
    func performBytes(_ request: OutboundRequest, path: String) async throws -> [UInt8] {
        let label = "\(request.method) \(Self.redacted(path))"
        let response: OutboundResponse
        do {
            response = try await httpClient.send(request)
        } catch let error as UpstreamError {
            throw UpstreamError(service: "stripe", kind: error.kind, message: "\(label): \(error.message)")
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw UpstreamError(service: "stripe", kind: .unreachable, message: "\(label) failed: \(type(of: error))")
        }
        let requestID = response.headers["request-id"]
        switch response.status {
        case 200..<300:
            return response.body
        case 429, 500...:
            let detail = Self.apiError(response, requestID: requestID).map { ": \($0.message)" } ?? ""
            throw UpstreamError(
                service: "stripe", kind: .badStatus(response.status), message: "\(label): Stripe answered \(response.status)\(detail)")
        case 400..<500:
            if let apiError = Self.apiError(response, requestID: requestID) { throw StripeError.api(apiError) }
            throw UpstreamError(
                service: "stripe", kind: .badStatus(response.status),
                message: "\(label): Stripe answered \(response.status) without a Stripe error body")
        default:
            throw UpstreamError(service: "stripe", kind: .badStatus(response.status), message: "\(label): unexpected status \(response.status)")
        }
    }

    /// Ids in paths are not secret, but long ones are shortened to keep logs readable.
    private static func redacted(_ path: String) -> String {
        path.count > 120 ? String(path.prefix(120)) + "…" : path
    }

    private struct ErrorBody: Decodable {
        struct Inner: Decodable {
            let type: String?
            let code: String?
            let message: String?
            let param: String?
            let requestID: String?
            enum CodingKeys: String, CodingKey {
                case type, code, message, param
                case requestID = "request_id"
            }
        }
        let error: Inner
    }

    static func apiError(_ response: OutboundResponse, requestID: String?) -> StripeError.API? {
        guard let body = try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body)) else { return nil }
        let inner = body.error
        guard inner.type != nil || inner.message != nil else { return nil }
        return StripeError.API(
            httpStatus: response.status, type: inner.type ?? "unknown", code: inner.code,
            message: inner.message ?? "Stripe gave no message", param: inner.param,
            requestID: requestID ?? inner.requestID)
    }
}
