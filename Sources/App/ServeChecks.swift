import Configuration

/// What `tollgate serve` refuses although the configuration is valid for the other commands
/// (`migrate`, `admin`, `backup` work on a database and need no app key). `tollgate config check`
/// reports the same refusals.
public enum ServeChecks {
    /// Each setting that stops `serve`, by key.
    public static func refusals(_ config: TollgateConfig) -> [StartupError] {
        var refusals: [StartupError] = []
        if !config.isDemo, config.apiKeys.publicKeys.allSatisfy({ $0.isEmpty }) {
            refusals.append(
                StartupError(
                    key: "api_keys.public",
                    "required outside demo mode: with no app key the X-Api-Key check of /api/v1/* is off; list at least one public key (e.g. pk_ followed by 24 random characters)"
                ))
        }
        return refusals
    }
}
