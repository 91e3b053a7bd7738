import Foundation
import JSON

/// Reads secrets named by `*_file` keys and `*_FILE` variables. Messages name the file and the
/// reason, never the content.
enum SecretFileReader {
    /// The secret in `path` as the key's JSON value: a string with surrounding whitespace and the
    /// trailing newline trimmed, or (for a list such as `api_keys.server`) one item per line or comma.
    static func read(_ path: String, for key: ConfigKey) -> Result<JSONValue, KeyProblem> {
        let text: String
        switch readText(path) {
        case .success(let content): text = content
        case .failure(let reason):
            return .failure(KeyProblem(path: key.path, message: "cannot read secret file \(path): \(reason.message)"))
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            return .failure(KeyProblem(path: key.path, message: "secret file \(path) is empty"))
        }
        if key.kind == .stringList {
            switch ConfigLayer.parseList(trimmed) {
            case .success(let value): return .success(value)
            case .failure:
                return .failure(KeyProblem(path: key.path, message: "secret file \(path) is not a list of keys"))
            }
        }
        return .success(.string(trimmed))
    }

    private struct Reason: Error {
        let message: String
    }

    private static func readText(_ path: String) -> Result<String, Reason> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(Reason(message: "no such file"))
        }
        guard !isDirectory.boolValue else { return .failure(Reason(message: "it is a directory")) }
        guard FileManager.default.isReadableFile(atPath: path),
            let data = FileManager.default.contents(atPath: path)
        else {
            return .failure(Reason(message: "permission denied (check the file's owner and mode)"))
        }
        guard data.count <= 1_048_576 else { return .failure(Reason(message: "larger than 1 MiB")) }
        guard let text = String(data: data, encoding: .utf8) else {
            return .failure(Reason(message: "not UTF-8 text"))
        }
        return .success(text)
    }
}
