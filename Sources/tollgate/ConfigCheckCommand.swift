import App
import Configuration
import Templating

/// `tollgate config check`: validates the configuration and prints it, secrets masked, then
/// each language catalog's missing keys (those pages and mails show in English).
enum ConfigCheckCommand {
    static func run(configPath: String?) -> ExitStatus {
        guard let config = CommandLineTool.loadConfig(configPath) else { return .configuration }
        print(config.maskedJSON())
        let templates: LocalizedTemplates
        do {
            let paths = try ResourceDirectories.resolve(config.paths)
            templates = try LocalizedTemplates(
                directory: paths.templatesDir, overrides: config.locales.dir, defaultLanguage: config.locales.defaultLanguage)
        } catch {
            CommandLineTool.printError("templates or catalogs: \(error)")
            return .configuration
        }
        for line in report(templates) { print(line) }
        let refusals = ServeChecks.refusals(config)
        guard refusals.isEmpty else {
            for refusal in refusals { CommandLineTool.printError("serve would refuse to start: \(refusal)") }
            return .configuration
        }
        print(config.isDemo ? "Configuration is valid (demo mode: no file given)." : "Configuration is valid.")
        return .success
    }

    /// One line per language: complete, or the keys it lacks (shown in English).
    static func report(_ templates: LocalizedTemplates) -> [String] {
        let missing = templates.missingKeys
        return templates.languages.map { language in
            guard let keys = missing[language] else { return "Catalog \(language): complete." }
            return "Catalog \(language): \(keys.count) missing key\(keys.count == 1 ? "" : "s") (shown in English): \(keys.joined(separator: ", "))"
        }
    }
}
