// Uses the generated client the way an app would, so the check proves more than "it compiles":
// the operations and the types an app needs exist under the names the contract gives them, and
// the client reaches a live server.
import Foundation
import OpenAPIRuntime

import TollgateAPIClient

let arguments = CommandLine.arguments
guard arguments.count == 2, let serverURL = URL(string: arguments[1]) else {
    print("usage: ClientUse http://127.0.0.1:PORT")
    exit(2)
}
// The attribution value is any JSON value an SDK sent: the generator must have taken its schema.
let attribution: Components.Schemas.AttributionValue.Type = Components.Schemas.AttributionValue.self
print("AttributionValue:", attribution)
let client = Client.live(serverURL)
switch try await client.healthz() {
case .ok: print("GET /healthz: 200 through the generated client")
default:
    print("GET /healthz: unexpected answer")
    exit(1)
}
