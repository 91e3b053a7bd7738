import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes each message as `<outbox id>.eml` into a folder (the demo default): a retry of the same
/// outbox row overwrites its file instead of adding a second one. Each file is written under a
/// hidden temporary name, flushed, then renamed into place, so a reader never sees half a message.
public struct FileTransport: MailTransport {
    /// The folder the `.eml` files go to (created when missing).
    public let directory: String

    /// A transport writing into `directory`.
    public init(directory: String) {
        self.directory = directory
    }

    /// Writes `message` to `<directory>/<outbox id>.eml`.
    /// - Throws: `MailError`: permanent when the message cannot be formatted or its id is not a
    ///   safe file name, transient when the folder cannot be written.
    public func send(_ message: MailMessage) async throws {
        let bytes = try message.rendered()
        let id = message.outboxID
        guard !id.isEmpty, id.utf8.allSatisfy({ Self.isSafe($0) }) else {
            throw MailError.permanent("the outbox id is not a safe file name")
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw MailError.transient("cannot create the mail folder '\(directory)'")
        }
        let final = directory + "/" + id + ".eml"
        let temporary = directory + "/." + id + ".eml.tmp"
        // 0600 whatever the umask: a message holds a buyer's address and, often, a code.
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw MailError.transient("cannot write '\(temporary)': \(String(cString: strerror(errno)))")
        }
        guard fchmod(fd, 0o600) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            unlink(temporary)
            throw MailError.transient("cannot set the mode of '\(temporary)': \(reason)")
        }
        var offset = 0
        var failure: String?
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { failure = String(cString: strerror(errno)); break }
            offset += written
        }
        if failure == nil, fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        if failure == nil, rename(temporary, final) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw MailError.transient("cannot write '\(final)': \(failure)")
        }
    }

    private static func isSafe(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
