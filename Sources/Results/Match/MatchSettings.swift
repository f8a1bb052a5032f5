import Capture
import ConfigurationKeys

/// What codes are expected (`match.*`): a pattern their text matches, a list of their payloads
/// and GS1 patterns with quantities (`ExpectedList`), or both (a code matches when it matches
/// either); neither: matching is off. With a list, what was read is also tallied against its
/// quantities (`ExpectedTally`).
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
    /// The entries `match.list`'s file held when the configuration was read.
    public var list = ExpectedList()

    public init(pattern: MatchPattern? = nil, listFile: String? = nil, list: ExpectedList = ExpectedList()) {
        (self.pattern, self.listFile, self.list) = (pattern, listFile, list)
    }

    /// Whether a pattern or a list is set: each code then carries `match`.
    public var isOn: Bool { pattern != nil || listFile != nil }

    /// Whether `text` matches: it is a payload entry of the list, or (checked only when it is
    /// not) it matches the pattern. A code without a text (a binary payload) never matches.
    public func match(_ text: String?) -> MatchPattern.Outcome {
        guard let text else { return .notMatched }
        if list.entry(text: text) != nil { return .matched }
        return pattern?.match(text) ?? .notMatched
    }

    /// Whether `code` matches, and the list entry it counts against: a payload or GS1 entry of
    /// the list (`ExpectedList.entry(for:)`), else (checked only then) the pattern on its text.
    public func match(_ code: MachineReadableCodeObject) -> (outcome: MatchPattern.Outcome, entry: Int?) {
        if let entry = list.entry(for: code) { return (.matched, entry) }
        guard let text = code.text else { return (.notMatched, nil) }
        return (pattern?.match(text) ?? .notMatched, nil)
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
            do {
                list = try ExpectedList(lines: try ListFile.lines(of: path))
            } catch let problem as ExpectedList.Problem {
                keys.problem("list", "\(path): \(problem)")
            } catch {
                keys.problem("list", "cannot read \(path): \(error)")
            }
        }
    }
}
