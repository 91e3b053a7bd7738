import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `OutboundHTTPClient` over Foundation's URLSession: no cookies, no cache, no credential
/// storage, a timeout per request.
public final class URLSessionHTTPClient: OutboundHTTPClient {
    private let session: URLSession
    /// Names the API in errors (`stripe`, `app_store`, ...).
    public let service: String

    /// Connections open to one host at most (URLSession's default on Linux, stated): a burst of
    /// requests to Stripe waits for one of these rather than opening a socket each.
    public static let maxConnectionsPerHost = 6

    public init(service: String) {
        self.service = service
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = Self.maxConnectionsPerHost
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCredentialStorage = nil
        session = URLSession(configuration: configuration)
    }

    deinit { session.invalidateAndCancel() }

    public func send(_ request: OutboundRequest) async throws -> OutboundResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        let components = request.timeout.components
        urlRequest.timeoutInterval = Double(components.seconds) + Double(components.attoseconds) / 1e18
        for header in request.headers {
            urlRequest.addValue(header.value, forHTTPHeaderField: header.name)
        }
        if !request.body.isEmpty {
            urlRequest.httpBody = Data(request.body)
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError where error.code == .timedOut {
            throw UpstreamError(service: service, kind: .timedOut, message: "\(request.method) \(request.url.host ?? "") timed out")
        } catch {
            throw UpstreamError(
                service: service, kind: .unreachable, message: "\(request.method) \(request.url.host ?? "") failed: \(Self.describe(error))")
        }
        guard let http = response as? HTTPURLResponse else {
            throw UpstreamError(service: service, kind: .invalidResponse, message: "not an HTTP response")
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String {
                headers[name.lowercased()] = value
            }
        }
        return OutboundResponse(status: http.statusCode, headers: headers, body: Array(data))
    }

    private static func describe(_ error: any Error) -> String {
        if let urlError = error as? URLError {
            return "URLError \(urlError.code.rawValue)"
        }
        return String(describing: type(of: error))
    }
}
