import Domain
import HTTPRouting

/// Who acts through the admin API, for the audit log: the admin token's name (set by
/// `AdminTokenMiddleware`) as an `admin`, from the request's client address.
enum AdminActor {
    static func from(_ context: RequestContext) -> AuditActor {
        AuditActor(name: context.authenticatedAs ?? "admin", role: .admin, clientAddress: context.clientAddress ?? context.remoteAddress)
    }
}
