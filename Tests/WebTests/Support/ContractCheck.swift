import Foundation
import HTTPCore
import Testing
import TestSupport

/// Holds every response the HTTP tests get through `TestApp.send` to `Public/openapi.json`: its
/// status must be documented for the operation, its content type listed, and a JSON body must
/// match the schema. A test that sees a response the document does not describe fails, so the
/// document cannot drift from what the service answers. Paths the document does not list (demo
/// routes, deliberately unknown paths) are left to the router test in `OperationsTests`.
enum ContractCheck {
    static let validator: OpenAPIResponseValidator = {
        let url = URL(fileURLWithPath: PackagePaths.publicDir + "/openapi.json")
        do {
            return try OpenAPIResponseValidator(documentData: try Data(contentsOf: url))
        } catch {
            fatalError("Public/openapi.json cannot be read: \(error)")
        }
    }()

    /// Records an issue (naming the request) when `response` is not what the document says.
    static func check(_ request: HTTPRequest, _ response: HTTPResponse) {
        let problems = validator.problems(
            method: request.method.rawValue, path: request.path, status: response.status.code,
            contentType: response.headers["Content-Type"], body: response.body
        ).filter { !$0.hasPrefix("no operation for") }
        guard !problems.isEmpty else { return }
        let summary = "\(request.method.rawValue) \(request.path) → \(response.status.code) differs from Public/openapi.json:"
        Issue.record(Comment(rawValue: ([summary] + problems).joined(separator: "\n")))
    }
}
