/// Masks an email address as API.md specifies: the first character of the local part, the
/// first character of the domain's first label, and the last label, with exactly three
/// U+2022 bullets each: `john.doe@example.co.uk` → `j•••@e•••.uk`.
public enum EmailMask {
    public static func mask(_ email: String) -> String {
        let bullets = "\u{2022}\u{2022}\u{2022}"
        guard let at = email.lastIndex(of: "@") else { return String(email.prefix(1)) + bullets }
        let local = email[..<at]
        let domain = email[email.index(after: at)...]
        let labels = domain.split(separator: ".", omittingEmptySubsequences: true)
        let first = labels.first.map { String($0.prefix(1)) } ?? ""
        let last = labels.count > 1 ? "." + (labels.last.map(String.init) ?? "") : ""
        return String(local.prefix(1)) + bullets + "@" + first + bullets + last
    }
}
