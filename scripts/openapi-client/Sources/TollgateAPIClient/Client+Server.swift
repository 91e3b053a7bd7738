// The generated `Client` and `Components` come from the OpenAPIGenerator plugin at build time, from
// openapi.json beside this file (copied from a live server by scripts/openapi-client-check).
import Foundation
import OpenAPIRuntime
import OpenAPIURLSession

extension Client {
    /// A client of the Tollgate at `serverURL` over URLSession, as an app would make one.
    public static func live(_ serverURL: URL) -> Client {
        Client(serverURL: serverURL, transport: URLSessionTransport())
    }
}
