import HTTPCore

extension HTTPRequest {
    /// Decoded query parameters (`application/x-www-form-urlencoded` rules), in order.
    public var queryItems: [(name: String, value: String)] {
        guard let query else { return [] }
        return FormURLEncoding.decode(query)
    }

    /// The first query parameter named `name`, decoded.
    public func queryParameter(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}
