import Foundation

/// A request to a store or payment API. Every base URL comes from configuration, so tests
/// point clients at fake servers on loopback.
public struct OutboundRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Time allowed for the whole exchange.
    public var timeout: Duration

    public init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: [UInt8] = [], timeout: Duration = .seconds(15)) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// The answer of a store or payment API, whatever its status.
public struct OutboundResponse: Sendable {
    public var status: Int
    /// Header names lower-cased.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
