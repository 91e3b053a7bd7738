import Configuration
import Foundation
import Logging
import App

/// Parses the command line and runs one command; returns the process exit status.
enum CommandLineTool {
    static let version = TollgateApp.version

    static let usage = """
        Usage: tollgate [COMMAND] [--config FILE]

        Tollgate gets web and in-app buyers back into the app with access.

        Commands:
          serve              Start the HTTP service (the default). Demo mode when no config is given.
          migrate            Apply pending database migrations and exit.
          config check       Validate the configuration and print it with secrets masked.
          backup FILE        Write a consistent copy of the live database to FILE.
          check              Verify the database (a restored backup): integrity, a schema this build
                             knows, every sealed row opening under a listed secret key.
          keys status        Count the rows sealed under each key of secret_keys (and before key ids).
          keys rotate        Seal every row under an older key again under the current (first) key,
                             in batches while the service runs (--batch-size N, default 200 rows per
                             transaction); resumable: run it again after a stop.
          admin outbox       List queued and sent mail (--status pending|sending|sent|failed, --limit N).
          admin resend       Email a fresh code (--email E or --purchase-id P).
          admin revoke ID    Revoke a redemption code.
          admin codes        List the codes of a buyer (--email E).
          admin purchases    List the purchases of a buyer (--email E).
          admin accounts     List the accounts of an email, with app users and devices (--email E).
          admin events       List events to the app's backend (--status pending|delivered|failed, --limit N).
          admin reports      List link-out reports to Apple and Google and the month's figures (--month YYYY-MM, --limit N).
          admin funnel       The redemption funnel of web purchases paid lately (--since 7d: <n>h or <n>d, 1h to 90d).
          admin delete-account --email E
                             Delete every account with that email: personal data erased, sessions
                             ended, codes revoked, mail cancelled; purchases kept, detached.
          admin forget-secrets --account ID --reason R
                             Unbind every install secret of the account's app users (a lost phone):
                             none proves anything until an install signs in again. Audited.
          operator add EMAIL --role viewer|support|admin
                             Invite a person to the console at /console/ (mails the invitation;
                             with mail.transport file or log, prints the link too).
          operator list | role EMAIL ROLE | reset EMAIL | remove EMAIL
                             List operators, change a role, invite again (forgets the password
                             and authenticator), or remove an operator.
          events test        Send a signed test event to each events endpoint and print what it answered.
          reconcile          Look for what Stripe, Apple and Google notifications missed and apply it, once
                             (--since 72h reads from then instead of the stored cursors).
          demo renew|cancel|refund --email E
                             Demo mode: renew, cancel or refund the buyer's simulated Stripe
                             subscription on the running service (it sends the events Stripe sends).

        Options:
          --config FILE      JSON configuration file (or set TOLLGATE_CONFIG).
          -h, --help         Show this help.
          --version          Show the version.

        Every configuration key can be overridden by a TOLLGATE_* environment variable
        (see docs/CONFIGURATION.md).
        """

    static func run(_ arguments: [String]) async -> ExitStatus {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments)
        } catch let error as UsageError {
            printError("tollgate: \(error.message)\nRun 'tollgate --help' for usage.")
            return .usage
        } catch {
            return .usage
        }
        switch parsed.command {
        case .help:
            print(usage)
            return .success
        case .version:
            print("tollgate \(version)")
            return .success
        case .serve:
            return await ServeCommand.run(configPath: parsed.configPath)
        case .migrate:
            return MigrateCommand.run(configPath: parsed.configPath)
        case .configCheck:
            return ConfigCheckCommand.run(configPath: parsed.configPath)
        case .check:
            return CheckCommand.run(configPath: parsed.configPath)
        case .backup(let destination):
            return await BackupCommand.run(configPath: parsed.configPath, destination: destination)
        case .eventsTest:
            return await EventsCommand.test(configPath: parsed.configPath)
        case .reconcile:
            return await ReconcileCommand.run(since: parsed.options["since"], configPath: parsed.configPath)
        case .admin(let action, let argument):
            return await AdminCommand.run(action: action, argument: argument, options: parsed.options, configPath: parsed.configPath)
        case .operator(let action, let arguments):
            return await OperatorCommand.run(action: action, arguments: arguments, role: parsed.options["role"], configPath: parsed.configPath)
        case .keys(let action):
            return KeysCommand.run(action: action, batchSize: parsed.options["batch-size"], configPath: parsed.configPath)
        case .demo(let action):
            return await DemoCommand.run(action: action, email: parsed.options["email"] ?? "", configPath: parsed.configPath)
        }
    }

    /// Loads the configuration or prints every problem and returns nil.
    static func loadConfig(_ path: String?) -> TollgateConfig? {
        do {
            return try ConfigLoader.load(path: path, environment: ProcessInfo.processInfo.environment)
        } catch {
            printError("tollgate: configuration is invalid:\n\(error)")
            return nil
        }
    }

    static func logger(for config: TollgateConfig) -> Logger {
        let level: Logger.Level =
            switch config.log.level.rawValue {
            case "debug": .debug
            case "warning": .warning
            case "error": .error
            default: .info
            }
        // Batched writes: one log line per request must not cost one write(2) per request.
        return Logger(sink: BufferedLogSink(descriptor: 2), minimumLevel: level)
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// Exit statuses a shell user expects (sysexits.h for usage and configuration errors).
enum ExitStatus: Int32 {
    case success = 0
    case failure = 1
    case usage = 64
    case configuration = 78
}
