import App
import Foundation
import Integrations
import UseCases

/// `tollgate events test`: sends one signed `test` event to each configured endpoint and prints
/// what each answered. Exits 1 when an endpoint did not answer 2xx (or none is configured).
enum EventsCommand {
    static func test(configPath: String?) async -> ExitStatus {
        guard let config = CommandLineTool.loadConfig(configPath) else { return .configuration }
        guard !config.events.endpoints.isEmpty else {
            CommandLineTool.printError("tollgate: no events endpoint is configured (events.endpoints)")
            return .failure
        }
        do {
            let endpoints = try config.events.endpoints.map { try EventEndpoint(url: $0.url, secret: $0.secret, types: $0.types) }
            let http = SocketHTTPClient(service: "events", maxResponseBytes: EventDeliveryConfiguration().maxResponseBytes)
            let sender = SendTestEvent(endpoints: endpoints, http: http)
            var allAccepted = true
            for answer in try await sender.send(now: Date()) {
                let status = answer.status.map { "HTTP \($0)" } ?? "no answer"
                print(TerminalText.row([answer.url, answer.endpointID, status, "\(answer.milliseconds) ms", answer.detail]))
                allAccepted = allAccepted && answer.accepted
            }
            return allAccepted ? .success : .failure
        } catch {
            CommandLineTool.printError("tollgate: events test failed: \(error)")
            return .failure
        }
    }
}
