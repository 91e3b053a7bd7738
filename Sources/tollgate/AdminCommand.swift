import Domain
import Foundation
import App
import UseCases

/// `tollgate admin ...`: what operators do on the host, on the same database as the service
/// (which may keep running: SQLite serializes the writers).
enum AdminCommand {
    /// What a host command works on (the database, and the use cases made from it), or the exit
    /// status when it cannot be opened (the configuration's problems or the error printed).
    enum Opened {
        case opened(UseCaseFactory)
        case failed(ExitStatus)
    }

    static func open(_ configPath: String?) -> Opened {
        guard let config = CommandLineTool.loadConfig(configPath) else { return .failed(.configuration) }
        do {
            return .opened(try UseCaseFactory(try Essentials(config: config, logger: .disabled)))
        } catch {
            CommandLineTool.printError("tollgate: cannot open the service: \(error)")
            return .failed(.failure)
        }
    }

    static func run(action: String, argument: String?, options: [String: String], configPath: String?) async -> ExitStatus {
        let services: UseCaseFactory
        switch open(configPath) {
        case .opened(let opened): services = opened
        case .failed(let status): return status
        }
        defer { services.essentials.database.close() }
        do {
            switch action {
            case "outbox":
                try await outbox(services, options: options)
            case "resend":
                try await resend(services, options: options)
            case "revoke":
                try await revoke(services, codeID: argument)
            case "codes":
                try await codes(services, options: options)
            case "purchases":
                try await purchases(services, options: options)
            case "accounts":
                try await accounts(services, options: options)
            case "events":
                try await events(services, options: options)
            case "reports":
                try await reports(services, options: options)
            case "delete-account":
                try await deleteAccount(services, options: options)
            case "forget-secrets":
                try await forgetSecrets(services, options: options)
            case "funnel":
                try await funnel(services, options: options)
            default:
                throw UsageError(message: "unknown admin action '\(action)'")
            }
            return .success
        } catch {
            return report(error, command: "admin \(action)")
        }
    }

    /// Prints why `command` failed and returns its exit status: a refusal's own sentence, a usage
    /// error's (status `usage`), or what failed.
    static func report(_ error: any Error, command: String) -> ExitStatus {
        switch error {
        case let error as UseCaseError:
            CommandLineTool.printError("tollgate: \(error.message)")
            return .failure
        case let error as UsageError:
            CommandLineTool.printError("tollgate: \(error.message)")
            return .usage
        default:
            CommandLineTool.printError("tollgate: \(command) failed: \(error)")
            return .failure
        }
    }

    /// `admin outbox [--status S] [--limit N]`: one line per message, newest first.
    static func outbox(_ services: UseCaseFactory, options: [String: String]) async throws {
        if let name = options["status"], !ViewOutbox.statuses.contains(name) {
            throw UsageError(message: "--status must be one of \(ViewOutbox.statuses.joined(separator: ", "))")
        }
        let limit = try limitOption(options)
        let entries = try await services.outbox.messages(status: options["status"], limit: limit)
        print(TerminalText.row(["ID", "STATUS", "TEMPLATE", "TO", "ATTEMPTS", "CREATED", "LAST ERROR"]))
        for entry in entries {
            print(
                TerminalText.row([
                    entry.id, entry.status, entry.template, entry.maskedRecipient, String(entry.attempts),
                    Timestamp.rfc3339(entry.createdAt), entry.lastError ?? ""
                ]))
        }
        print("\(entries.count) message(s)")
    }

    static func limitOption(_ options: [String: String]) throws -> Int {
        guard let text = options["limit"] else { return 100 }
        guard let value = Int(text), (1...1000).contains(value) else {
            throw UsageError(message: "--limit must be a whole number from 1 to 1000")
        }
        return value
    }
}
