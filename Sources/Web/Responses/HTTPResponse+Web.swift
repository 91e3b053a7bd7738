import HTTPCore
import HTTPRouting

extension HTTPResponse {
    /// A JSON response from bytes already encoded.
    public static func json(_ bytes: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"], body: bytes)
    }

    /// A JSON response built with a `JSONWriter` of `capacity` bytes (a body that fits is never copied to grow).
    public static func json(status: HTTPStatus = .ok, capacity: Int = 256, _ body: (inout JSONWriter) -> Void) -> HTTPResponse {
        var writer = JSONWriter(capacity: capacity)
        writer.object(body)
        return .json(writer.bytes, status: status)
    }

    /// The API.md error body for `error`, with `Retry-After` when it has one.
    public static func apiError(_ error: APIError) -> HTTPResponse {
        var response = HTTPResponse.json(status: error.status) { json in
            json.object("error") { object in
                object.string("code", error.code)
                object.string("message", error.message)
                object.bool("retryable", error.retryable)
            }
        }
        if let seconds = error.retryAfterSeconds {
            response.headers.set("Retry-After", String(seconds))
        }
        return response
    }

    /// An HTML page (security headers are added for every HTML response by `AppResponder`).
    public static func html(_ bytes: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"], body: bytes)
    }

    /// A redirect to `location` (303 after a POST, 302 otherwise).
    public static func redirect(to location: String, status: HTTPStatus = .found) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Location": location, "Cache-Control": "no-store"])
    }

    /// Plain text, for operational endpoints.
    public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8", status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: contentType, body: text, headers: ["Cache-Control": "no-store"])
    }
}
