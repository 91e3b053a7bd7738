/// A header list's wire form worked out once: the lines the response serializer writes for its
/// fields, and what it reads from them. Kept by `HTTPHeaders` for a response many requests share
/// (a pre-rendered page) and dropped by any change to the fields.
final class PreparedHeaders: Sendable {
    /// The fields as `HTTPResponseSerializer.appendFields` writes them, each line ending in CRLF.
    let lines: [UInt8]
    /// The `Content-Length` the fields declare (a HEAD answer keeps it).
    let declaredContentLength: String?
    /// Whether the fields ask for the connection to be closed.
    let requestsClose: Bool
    /// Who prepared them and after what (see `HTTPHeaders.prepare(tag:)`).
    let tag: String

    init(_ headers: HTTPHeaders, tag: String) {
        var lines: [UInt8] = []
        declaredContentLength = HTTPResponseSerializer.appendFields(headers, to: &lines)
        self.lines = lines
        requestsClose = HTTPResponseSerializer.requestsClose(headers)
        self.tag = tag
    }
}

extension HTTPHeaders {
    /// Works out the fields' wire form now, so a response sent many times as it is does not
    /// check and copy each field on every send. `tag` says what was done to the fields before
    /// (`isPrepared(tag:)` asks it, e.g. a middleware that would add the same fields again). Any
    /// change to the fields drops both.
    public mutating func prepare(tag: String) {
        prepared = PreparedHeaders(self, tag: tag)
    }

    /// Whether the fields are exactly as they were when prepared with `tag`.
    public func isPrepared(tag: String) -> Bool {
        prepared?.tag == tag
    }
}
