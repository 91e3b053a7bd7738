import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Start-up file-system walking for `StaticFiles`, with `lstat` so links are never followed.
extension StaticFiles {
    enum FileType: Equatable {
        case regular, directory, other
    }

    /// The type of `path` itself (a symbolic link is `.other`), or nil when it does not exist.
    static func fileType(atPath path: String) -> FileType? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    /// Relative paths of the regular files under `base/relative`, skipping hidden entries,
    /// links and anything else that is not a regular file or a real directory.
    /// - Throws: `StaticFilesError` when a directory cannot be listed.
    static func regularFiles(in base: String, relative: String) throws -> [String] {
        let directory = relative.isEmpty ? base : base + "/" + relative
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw StaticFilesError(path: directory, message: "cannot list directory")
        }
        var files: [String] = []
        for entry in entries.sorted() where !entry.hasPrefix(".") {
            let child = relative.isEmpty ? entry : relative + "/" + entry
            switch fileType(atPath: base + "/" + child) {
            case .regular: files.append(child)
            case .directory: files += try regularFiles(in: base, relative: child)
            case .other, nil: continue
            }
        }
        return files
    }

    /// The contents of the regular file at `path`. Opened with `O_NOFOLLOW` and checked with
    /// `fstat`, so a file swapped for a link after the directory walk is refused, not followed.
    /// - Throws: `StaticFilesError` when the file cannot be opened or read, is no longer a
    ///   regular file, or is larger than `maxBytes`.
    static func readRegularFile(atPath path: String, maxBytes: Int) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StaticFilesError(path: path, message: "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw StaticFilesError(path: path, message: "cannot stat: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw StaticFilesError(path: path, message: "is no longer a regular file")
        }
        let size = Int(info.st_size)
        guard size <= maxBytes else {
            throw StaticFilesError(path: path, message: "is \(size) bytes; static files are limited to \(maxBytes) bytes")
        }
        var body = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let count = body.withUnsafeMutableBytes { raw in
                // raw has `size` bytes; read at most what is left after `filled`.
                read(descriptor, raw.baseAddress.map { $0 + filled }, size - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw StaticFilesError(path: path, message: "cannot read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            filled += count
        }
        // The file shrank while being read: keep what was actually there.
        if filled < size { body.removeLast(size - filled) }
        return body
    }
}
