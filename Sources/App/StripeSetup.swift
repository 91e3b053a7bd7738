import Configuration
import Foundation
import Integrations
import Logging
import StripeSimulator

/// The Stripe side of the configuration: the real client (for the configured key, or in demo
/// mode for the simulator's key and its routes on this instance's listener), the simulator
/// itself, and the webhook secrets Stripe's events are checked against.
enum StripeSetup {
    /// The client, or nil when neither `stripe.secret_key` nor `stripe.simulator` is set.
    /// - Throws: `StripeSimulatorError` when the simulator's keys cannot be derived.
    static func client(_ config: TollgateConfig, serviceURL: @escaping @Sendable () -> String) throws -> StripeClient? {
        let http = URLSessionHTTPClient(service: "stripe")
        if config.stripe.simulator {
            let keys = try simulatorKeys(config)
            return StripeClient(secretKey: keys.apiKey, apiBase: { serviceURL() + StripeSimulator.apiPath }, http: http)
        }
        return config.stripe.secretKey.map { StripeClient(secretKey: $0, apiBase: config.stripe.apiBase, http: http) }
    }

    /// The secrets a webhook's signature is checked against (the simulator's own in demo mode).
    static func webhookSecrets(_ config: TollgateConfig) throws -> [String] {
        config.stripe.simulator ? [try simulatorKeys(config).webhookSecret] : config.stripe.webhookSecretList
    }

    /// Demo mode's Stripe when `stripe.simulator` is on (only `serve` runs it).
    static func simulator(
        _ config: TollgateConfig, serviceURL: @escaping @Sendable () -> String, logger: Logger, now: @escaping @Sendable () -> Date,
        payLaterDelay: Duration
    ) throws -> StripeSimulator? {
        guard config.stripe.simulator else { return nil }
        return StripeSimulator(
            keys: try simulatorKeys(config), publicBaseURL: config.baseURL, serviceURL: serviceURL,
            http: URLSessionHTTPClient(service: "stripe-simulator"), logger: logger, now: now, payLaterDelay: payLaterDelay)
    }

    private static func simulatorKeys(_ config: TollgateConfig) throws -> SimulatorKeys {
        try SimulatorKeys(secretKey: config.secretKey, webhookSecret: config.stripe.webhookSecretList.first)
    }
}
