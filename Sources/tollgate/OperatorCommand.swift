import Domain
import Foundation
import App
import Configuration
import UseCases

/// `tollgate operator ...`: the console's operators, managed on the host (acting as an admin,
/// audited as `cli:<user>`). `add` and `reset` mail an invitation; with the mail transport
/// `file` or `log` the link is printed too, since no real mail goes out.
enum OperatorCommand {
    static func run(action: String, arguments: [String], role: String?, configPath: String?) async -> ExitStatus {
        let services: UseCaseFactory
        switch AdminCommand.open(configPath) {
        case .opened(let opened): services = opened
        case .failed(let status): return status
        }
        defer { services.essentials.database.close() }
        let config = services.essentials.config
        let operators = services.consoleOperators
        let actor = AuditActor(name: AdminCommand.actor, role: .admin)
        let printsLinks = config.mail.transport == .file || config.mail.transport == .log
        do {
            switch action {
            case "add":
                let role = try parseRole(role ?? "")
                let invited = try await operators.add(email: arguments[0], role: role, by: actor, now: Date())
                print("Invited \(invited.email) as \(invited.role.rawValue); the invitation lasts 72 hours.")
                if printsLinks { print("Invitation link: \(invited.link)") }
                try await services.essentials.outboxWorker().runOnce()
            case "list":
                print(["EMAIL", "ROLE", "ENROLLED", "ADDED"].joined(separator: "\t"))
                let all = try await operators.list(by: actor)
                for person in all {
                    print(
                        [
                            person.email, person.role.rawValue, person.isEnrolled ? "yes" : "invited",
                            Timestamp.rfc3339(person.createdAt)
                        ].joined(separator: "\t"))
                }
                print("\(all.count) operator(s)")
            case "role":
                let role = try parseRole(arguments[1])
                try await operators.setRole(email: arguments[0], role: role, by: actor, now: Date())
                print("\(arguments[0].lowercased()) is now \(role.rawValue).")
            case "reset":
                let invited = try await operators.reset(email: arguments[0], by: actor, now: Date())
                print("Reset \(invited.email): sessions ended, a new invitation sent.")
                if printsLinks { print("Invitation link: \(invited.link)") }
                try await services.essentials.outboxWorker().runOnce()
            case "remove":
                try await operators.remove(email: arguments[0], by: actor, now: Date())
                print("Removed \(arguments[0].lowercased()): sessions ended.")
            default:
                throw UsageError(message: "unknown operator action '\(action)'")
            }
            return .success
        } catch {
            return AdminCommand.report(error, command: "operator \(action)")
        }
    }

    static func parseRole(_ text: String) throws -> OperatorRole {
        guard let role = OperatorRole(rawValue: text.lowercased()) else {
            throw UsageError(message: "--role must be one of viewer, support, admin")
        }
        return role
    }
}
