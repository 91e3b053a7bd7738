import Configuration
import Domain
import Foundation
import Integrations
import Logging
import UseCases

/// The link-out report senders the configuration allows: Apple's when the App Store Server API
/// key is configured (the External Purchase Server API takes the same JWT), Google's when the
/// Play service account is. A report for a platform without one waits, retried, until it is.
enum LinkOutReportSenders {
    /// - Throws: `StartupError` naming an External Purchase base URL that cannot be parsed.
    static func make(config: TollgateConfig, stores: StoreClients) throws -> [LinkOutPolicy.Reporting: any LinkOutReportSender] {
        var senders: [LinkOutPolicy.Reporting: any LinkOutReportSender] = [:]
        if let api = stores.appStoreAPI {
            let client = ExternalPurchaseReportClient(
                api: api, productionBaseURL: try url(config.apple.api.externalPurchaseBaseURL, key: "apple.api.external_purchase_base_url"),
                sandboxBaseURL: try url(config.apple.api.externalPurchaseSandboxBaseURL, key: "apple.api.external_purchase_sandbox_base_url"))
            senders[.apple] = AppleLinkOutReportSender(client: client)
        }
        if let play = stores.googlePlay {
            senders[.google] = GoogleLinkOutReportSender(client: GooglePlayExternalTransactionsClient(play: play))
        }
        return senders
    }

    /// Warns, once at start, of each programme in `link_out.rules` whose platform has no sender:
    /// its reports would wait, retried, until the credentials are configured.
    static func warnUnconfigured(_ policy: LinkOutPolicy, senders: [LinkOutPolicy.Reporting: any LinkOutReportSender], logger: Logger) {
        for rule in policy.rules {
            guard let reporting = rule.reporting, senders[reporting] == nil else { continue }
            let keys = reporting == .apple ? "apple.api.issuer_id, key_id and private_key_path" : "google.service_account_path"
            logger.warning(
                "link_out_reporting_unconfigured",
                [
                    ("program", .string(rule.program)), ("platform", .string(reporting.rawValue)),
                    ("reason", .string("reports of this programme wait until \(keys) are set"))
                ])
        }
    }

    private static func url(_ text: String, key: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw StartupError(key: key, "\(text) is not an http(s) URL")
        }
        return url
    }
}
