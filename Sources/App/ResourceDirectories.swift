import Configuration
import Foundation

/// Finds `templates/` and `Public/` wherever `tollgate` is started from: a relative
/// `paths.templates_dir` / `paths.public_dir` is read from the working directory when it is
/// there, else beside the executable's package (the executable's folder and up to four folders
/// above it: `.build/<triple>/debug/tollgate` in a checkout, `/opt/tollgate/tollgate` installed).
/// A path that is found nowhere is reported with every absolute path tried, before the
/// database is touched.
public enum ResourceDirectories {
    /// `paths` with each directory made absolute where it was found.
    /// - Parameters:
    ///   - executable: the running executable's path (`/proc/self/exe` by default).
    ///   - workingDirectory: the directory relative paths are read from first.
    /// - Throws: `StartupError` naming the key and the absolute paths looked in.
    public static func resolve(
        _ paths: TollgateConfig.Paths, executable: String? = nil,
        workingDirectory: String = FileManager.default.currentDirectoryPath
    ) throws -> TollgateConfig.Paths {
        let executable = executable ?? (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var resolved = paths
        resolved.templatesDir = try find(
            paths.templatesDir, key: "paths.templates_dir", marker: "home.html", executable: executable, workingDirectory: workingDirectory)
        resolved.publicDir = try find(
            paths.publicDir, key: "paths.public_dir", marker: "style.css", executable: executable, workingDirectory: workingDirectory)
        return resolved
    }

    private static func find(_ path: String, key: String, marker: String, executable: String, workingDirectory: String) throws -> String {
        func isDirectory(_ candidate: String) -> Bool {
            var directory: ObjCBool = false
            return FileManager.default.fileExists(atPath: candidate, isDirectory: &directory) && directory.boolValue
        }
        if path.hasPrefix("/") {
            guard isDirectory(path) else { throw StartupError(key: key, "the directory \(path) does not exist") }
            return path
        }
        var tried = [URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: workingDirectory, isDirectory: true)).standardizedFileURL.path]
        if isDirectory(tried[0]) { return tried[0] }
        var folder = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = folder.appendingPathComponent(path).standardizedFileURL.path
            if !tried.contains(candidate) { tried.append(candidate) }
            if isDirectory(candidate), FileManager.default.fileExists(atPath: candidate + "/" + marker) { return candidate }
            if folder.path == "/" { break }
            folder.deleteLastPathComponent()
        }
        throw StartupError(
            key: key,
            "the directory \"\(path)\" was found neither in the working directory nor beside the executable; looked in \(tried.joined(separator: ", ")). Run tollgate from the package folder, or set \(key) to an absolute path."
        )
    }
}
