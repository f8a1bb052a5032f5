import ConfigurationKeys

/// What codes are expected (`match.*`): a pattern their text matches, a list of their payloads,
/// or both (a code matches when it matches either); neither: matching is off.
///
/// Read with the rest of the configuration, so `match.list`'s file is read again at every
/// reload (SIGHUP) whether or not the configuration file changed, and a list that cannot be
/// read is a problem of `match.list`: at start the run does not begin, at a reload the running
/// configuration (its list) is kept, and `check-config` reports it.
public struct MatchSettings: Sendable, Hashable {
    /// `match.pattern`, compiled; `nil`: none.
    public var pattern: MatchPattern?
    /// `match.list`: the file's path; `nil`: none.
    public var listFile: String?
    /// The values `match.list`'s file held when the configuration was read.
    public var list: Set<String> = []

    public init(pattern: MatchPattern? = nil, listFile: String? = nil, list: Set<String> = []) {
        (self.pattern, self.listFile, self.list) = (pattern, listFile, list)
    }

    /// Whether a pattern or a list is set: each code then carries `match`.
    public var isOn: Bool { pattern != nil || listFile != nil }

    /// Whether `text` matches: it is in the list, or (checked only when it is not) it matches
    /// the pattern. A code without a text (a binary payload) never matches.
    public func match(_ text: String?) -> MatchPattern.Outcome {
        guard let text else { return .notMatched }
        if list.contains(text) { return .matched }
        return pattern?.match(text) ?? .notMatched
    }
}

extension MatchSettings: ConfigurationSection {
    /// Reads `match.*` (given `keys.scoped(to: "match")`): compiles `pattern` and reads `list`'s
    /// file, each fault a problem of its key. Never `nil`: the handler is made whether matching
    /// is on or not, so a reload can turn it on.
    public init(reading keys: ConfigurationKeyReader) {
        self.init()
        if let source = keys.string("pattern", "a regular expression") {
            do { pattern = try MatchPattern(source) } catch { keys.problem("pattern", "\(error)") }
        }
        if let path = keys.string("list", "a file path") {
            listFile = path
            do { list = Set(try ListFile.entries(of: path)) } catch { keys.problem("list", "cannot read \(path): \(error)") }
        }
    }
}
