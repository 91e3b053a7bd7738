/// `tollgate config check`: validates the configuration and prints it, secrets masked.
enum ConfigCheckCommand {
    static func run(configPath: String?) -> ExitStatus {
        guard let config = CommandLineTool.loadConfig(configPath) else { return .configuration }
        print(config.maskedJSON())
        print(config.isDemo ? "Configuration is valid (demo mode: no file given)." : "Configuration is valid.")
        return .success
    }
}
