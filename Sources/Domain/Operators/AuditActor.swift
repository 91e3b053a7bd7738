/// Who acts (an operator's email, an admin token's name, `cli:<user>`), with the role the action
/// is checked against, the reason given and the client address: what the audit log records.
public struct AuditActor: Sendable, Equatable {
    public let name: String
    public let role: OperatorRole
    public let reason: String?
    public let clientAddress: String?

    public init(name: String, role: OperatorRole, reason: String? = nil, clientAddress: String? = nil) {
        self.name = name
        self.role = role
        self.reason = reason
        self.clientAddress = clientAddress
    }

    /// The same actor giving `reason`.
    public func giving(_ reason: String?) -> AuditActor { AuditActor(name: name, role: role, reason: reason, clientAddress: clientAddress) }
}
