import Foundation
import JSON

/// Loads the configuration: one JSON file, then `TOLLGATE_*` environment overrides, then
/// `*_file` secrets, then validation. With no file the service runs in demo mode.
public enum ConfigLoader {
    /// The variable naming the configuration file when no path is passed.
    public static let configPathVariable = "TOLLGATE_CONFIG"

    /// Loads from `path` (nil → `TOLLGATE_CONFIG` from `environment`, else demo mode), applies
    /// environment overrides and `*_file` secrets, and validates. In demo mode without a
    /// `secret_key`, one is read from (or created in) the directory of `database.path`.
    /// - Throws: `ConfigError` listing every problem found, each naming the key path, where the
    ///   value came from, and what is wrong.
    public static func load(path: String?, environment: [String: String]) throws -> TollgateConfig {
        var problems: [ConfigError.Problem] = []
        let configPath = path ?? environment[configPathVariable].flatMap { $0.isEmpty ? nil : $0 }

        var fileLayer = ConfigLayer()
        if let configPath {
            let source = ConfigError.Source.configFile(configPath)
            switch readFile(configPath) {
            case .success(let root): fileLayer = ConfigLayer.fromFile(root, source: source, problems: &problems)
            case .failure(let failure):
                problems.append(ConfigError.Problem(keyPath: "", source: source, message: failure.message))
            }
        }
        let environmentLayer = ConfigLayer.fromEnvironment(environment, problems: &problems)
        // A file that cannot be read leaves nothing to validate: report it (and any bad variable) alone.
        if !problems.isEmpty, problems.contains(where: { $0.keyPath.isEmpty && $0.source == .configFile(configPath ?? "") }) {
            throw ConfigError(problems: problems)
        }
        let merged = fileLayer.overridden(by: environmentLayer)

        var config = configPath == nil ? TollgateConfig.demoDefaults() : TollgateConfig()
        var sources: [String: ConfigError.Source] = [:]
        for key in ConfigSchema.keys {
            guard let entry = merged.entries[key.path] else { continue }
            var source = entry.source
            let value: JSONValue
            switch entry.setting {
            case .inline(let inline):
                value = inline
            case .file(let file):
                source = .secretFile(file)
                switch SecretFileReader.read(file, for: key) {
                case .success(let read): value = read
                case .failure(let problem):
                    problems.append(ConfigError.Problem(keyPath: problem.path, source: source, message: problem.message))
                    sources[key.path] = source
                    continue
                }
            }
            sources[key.path] = source
            for problem in key.decode(value, &config) {
                problems.append(ConfigError.Problem(keyPath: problem.path, source: source, message: problem.message))
            }
        }

        if config.isDemo, sources["base_url"] == nil {
            config.baseURL = "http://localhost:\(config.listen.port)"
        }
        var validator = ConfigValidator(
            sources: sources, fallback: configPath.map { .configFile($0) } ?? .defaults)
        validator.validate(&config)
        problems += validator.problems
        // Validation problems of keys that already failed to decode are noise: keep the first.
        problems = deduplicated(problems)
        guard problems.isEmpty else { throw ConfigError(problems: problems) }

        if config.isDemo, config.secretKeyList.isEmpty {
            let directory = (config.database.path as NSString).deletingLastPathComponent
            config.secretKey = try DemoSecret.loadOrCreate(directory: directory.isEmpty ? "." : directory)
        }
        return config
    }

    /// Reads and parses the configuration file; the failure says what to fix.
    private static func readFile(_ path: String) -> Result<JSONValue, JSONParseFailure> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(JSONParseFailure(message: "file not found (pass --config with an existing file, or no file for demo mode)"))
        }
        guard !isDirectory.boolValue else {
            return .failure(JSONParseFailure(message: "is a directory, not a JSON file"))
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(JSONParseFailure(message: "cannot read the file (check its owner and mode)"))
        }
        switch JSONValue.parse(data) {
        case .success(let value): return .success(value)
        case .failure(let failure): return .failure(JSONParseFailure(message: "not valid JSON: \(failure.message)"))
        }
    }

    private static func deduplicated(_ problems: [ConfigError.Problem]) -> [ConfigError.Problem] {
        var seen: Set<String> = []
        return problems.filter { problem in
            guard !problem.keyPath.isEmpty else { return true }
            return seen.insert(problem.keyPath).inserted
        }
    }
}
