import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `secret_key` of demo mode: generated once, kept in `<directory>/demo-secret-key` (mode 0600)
/// so signed links and obfuscated ids survive restarts.
public enum DemoSecret {
    /// The file name inside the directory.
    public static let fileName = "demo-secret-key"

    /// Reads the demo secret from `directory`, creating the directory and a new random secret
    /// (64 hex characters from the system's CSPRNG) when there is none yet.
    /// - Throws: `ConfigError` naming the file when it cannot be read, created or written, or
    ///   when an existing file holds fewer than 32 characters.
    public static func loadOrCreate(directory: String) throws -> String {
        let path = (directory as NSString).appendingPathComponent(fileName)
        if let existing = try readExisting(path) { return existing }

        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw failure(path, "cannot create directory \(directory)")
        }
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<32).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16)
        }.joined()

        // Write a private temporary file, then link it into place: the link fails if another
        // process created the secret first, in which case that one wins and is read back.
        let temporary = path + ".\(getpid()).\(UInt64.random(in: 0 ... .max, using: &generator)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw failure(path, "cannot create the file: \(String(cString: strerror(errno)))")
        }
        let bytes = Array((secret + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        defer { unlink(temporary) }
        guard written == bytes.count, synced == 0 else {
            throw failure(path, "cannot write the file: \(String(cString: strerror(errno)))")
        }
        if link(temporary, path) != 0 {
            let code = errno
            if code == EEXIST, let existing = try readExisting(path) { return existing }
            throw failure(path, "cannot create the file: \(String(cString: strerror(code)))")
        }
        return secret
    }

    private static func readExisting(_ path: String) throws -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path),
            let text = String(data: data, encoding: .utf8)
        else {
            throw failure(path, "cannot read the file (check its owner and mode, or delete it to make a new one)")
        }
        let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard secret.count >= 32 else {
            throw failure(path, "holds fewer than 32 characters; delete it to make a new one")
        }
        return secret
    }

    private static func failure(_ path: String, _ message: String) -> ConfigError {
        ConfigError(problems: [ConfigError.Problem(keyPath: "secret_key", source: .secretFile(path), message: "demo secret: \(message)")])
    }
}
