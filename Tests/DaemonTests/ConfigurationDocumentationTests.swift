import Daemon
import Foundation
import TestSupport
import Testing

/// The keys the daemon reads (`SyncscanConfiguration.keys`, what `check-config` knows) are the
/// keys `config/syncscan.yaml`, `docs/configuration.md` and `docs/man/syncscan.yaml.5` document,
/// each in all three, none that the daemon does not read; and where two of them state a key's
/// default they state the same one.
@Suite(.offThePool) struct ConfigurationDocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// zbar's per-symbology keys (`zbar.qrcode.enable`) are documented once, as `zbar.SYMBOLOGY.enable`.
    static func documented(_ key: String) -> String {
        let parts = key.split(separator: ".")
        return parts.count == 3 && parts[0] == "zbar" ? "zbar.SYMBOLOGY.\(parts[2])" : key
    }

    /// What a key's documentation says: its default where it states one, and the keys documented with it.
    struct Entry {
        var defaultText: String?
        var keys: [String]
    }

    /// A default as the documents write it, compared as text: Markdown's links and code spans and
    /// roff's escapes and fonts gone, no final full stop, case and spacing aside.
    static func plain(_ text: String) -> String {
        var t = text.replacing(/\[([^\]]*)\]\([^)]*\)/) { String($0.output.1) }
        // roff's \\ is one backslash: the man page's \\r\\n reads \r\n.
        t = t.replacingOccurrences(of: "\\\\", with: "\\")
        t = t.replacingOccurrences(of: "`", with: "").replacingOccurrences(of: "\\(en", with: "–")
            .replacingOccurrences(of: "\\|", with: "|").replacing(/\\f[BIRP]/, with: "").replacingOccurrences(of: "\\-", with: "-")
        t = t.trimmingCharacters(in: .whitespaces)
        if t.hasSuffix(".") { t.removeLast() }
        return t.split(separator: " ").joined(separator: " ").lowercased()
    }

    /// The one value a default names, when it is one (`1280`, `tcp`, `` `syncscan keyboard` ``, `1 (with window)`):
    /// not prose (`zbar's`, `the largest size within the maximum`) and not the absence of one (`none`).
    static func literal(_ text: String) -> String? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if let span = text.wholeMatch(of: /`([^`]*)`(?:, e\.g\. .*| \(.*)?/) { return String(span.output.1) }
        let first = text.split(separator: " (", maxSplits: 1).first.map(String.init) ?? text
        guard !first.contains(" "), !first.contains("'"), !["none", "—", "not"].contains(first) else { return nil }
        return first.replacingOccurrences(of: "`", with: "")
    }

    /// `docs/configuration.md`'s table of flags and keys: each key of a row's key cell (code spans:
    /// `a.b`, `a.b/c/d` for `a.b`, `a.c`, `a.d`, `a: {x, y}` for `a.x`, `a.y`), with the row's default.
    static func markdownEntries() throws -> (entries: [String: Entry], twice: [String]) {
        var entries: [String: Entry] = [:], twice: [String] = []
        for line in try text("docs/configuration.md").split(separator: "\n") where line.hasPrefix("| ") {
            // A cell's `\|` is no column's end.
            let cells = line.replacingOccurrences(of: "\\|", with: "\u{1}").split(separator: "|", omittingEmptySubsequences: false)
                .dropFirst().dropLast().map { $0.replacingOccurrences(of: "\u{1}", with: "\\|").trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4, cells[1] != "config key", !cells[1].hasPrefix("---") else { continue }
            var keys: [String] = []
            for span in cells[1].matches(of: /`([^`]*)`/).map({ String($0.output.1) }) {
                if let mapping = span.wholeMatch(of: /([a-z_][a-z0-9_.-]*): \{(.*)\}/) {
                    let (name, children) = (String(mapping.output.1), mapping.output.2)
                    keys += name == "device.controls" ? [name] : children.split(separator: ",").map { "\(name).\($0.trimmingCharacters(in: .whitespaces))" }
                } else if let alternatives = span.wholeMatch(of: /([a-z_][a-zA-Z0-9_.-]*\.)([a-z0-9_-]+(?:\/[a-z0-9_-]+)+)/) {
                    keys += alternatives.output.2.split(separator: "/").map { "\(alternatives.output.1)\($0)" }
                } else {
                    keys.append(span)
                }
            }
            for key in keys {
                if entries[key] != nil { twice.append(key) }
                entries[key] = Entry(defaultText: cells[3], keys: keys)
            }
        }
        return (entries, twice)
    }

    /// `docs/man/syncscan.yaml.5`'s entries: the `.B` key lines of a `.TP` (more after `.TQ`), with
    /// the "Default: …" its paragraph ends in, if any.
    static func manPageEntries() throws -> (entries: [String: Entry], twice: [String]) {
        let lines = try text("docs/man/syncscan.yaml.5").replacingOccurrences(of: "\\-", with: "-")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var entries: [String: Entry] = [:], twice: [String] = [], i = 0
        while i < lines.count {
            guard lines[i] == ".TP", i + 1 < lines.count, lines[i + 1].hasPrefix(".B ") else { i += 1; continue }
            var keys: [String] = [], j = i + 1
            while j < lines.count, lines[j].hasPrefix(".B ") {
                keys.append(String(lines[j].dropFirst(3)).trimmingCharacters(in: .whitespaces))
                j += 1
                if j < lines.count, lines[j] == ".TQ" { j += 1 }
            }
            var paragraph: [String] = []
            while j < lines.count, lines[j].wholeMatch(of: /\.(TP|SS|SH|PP|RS|RE|IP)\b.*/) == nil { paragraph.append(lines[j]); j += 1 }
            let stated = paragraph.joined(separator: " ").firstMatch(of: /Default: (.*)$/).map { String($0.output.1) }
            for key in keys {
                if entries[key] != nil { twice.append(key) }
                entries[key] = Entry(defaultText: stated, keys: keys)
            }
            i = j
        }
        return (entries, twice)
    }

    /// A key of `config/syncscan.yaml`, set or commented out (`# width: 1280`), with the value shown
    /// or the default its comment states (`# default: …`).
    struct YAMLKey {
        var value: String
        var commented: Bool
        var statedInComment: Bool
    }

    /// `config/syncscan.yaml`'s keys, nesting by indentation (a commented line's counted after its
    /// `#` and one space). A commented line whose value is words (`# change_level: grey levels …`)
    /// is prose, not a key; the camera's controls under `device.controls` are not syncscan's keys.
    static func yamlKeys() throws -> [String: YAMLKey] {
        var keys: [String: YAMLKey] = [:], parents: [(indent: Int, name: String)] = []
        for line in try text("config/syncscan.yaml").split(separator: "\n") {
            guard let m = line.wholeMatch(of: /( *)(#?)( *)([a-z_][a-z0-9_-]*):(?: +(.*?))?\s*/) else { continue }
            let commented = !m.output.2.isEmpty
            let indent = m.output.1.count + (commented ? max(0, m.output.3.count - 1) : m.output.3.count)
            let rest = String(m.output.5 ?? "")
            var value = rest.replacing(/(?:^|\s+)#.*$/, with: "").trimmingCharacters(in: .whitespaces)
            if commented, !value.isEmpty, value.wholeMatch(of: /"[^"]*"|'[^']*'|\[[^\]]*\]|[^\s"'\[]+/) == nil { continue }
            let stated = commented ? rest.firstMatch(of: /(?:^|\s)#.*default: ([^;]*)/).map { String($0.output.1) } : nil
            if let stated { value = stated }
            while let last = parents.last, last.indent >= indent { parents.removeLast() }
            let key = (parents.map(\.name) + [String(m.output.4)]).joined(separator: ".")
            parents.append((indent, String(m.output.4)))
            if !key.hasPrefix("device.controls.") {
                keys[key] = YAMLKey(value: value, commented: commented, statedInComment: stated != nil)
            }
        }
        // A mapping's own line (`device:`) is no key.
        return keys.filter { key in !keys.keys.contains { $0.hasPrefix(key.key + ".") } }
    }

    static var daemonKeys: Set<String> { Set(SyncscanConfiguration.keys.map(documented)) }

    @Test("every key the daemon reads is in config/syncscan.yaml, docs/configuration.md and syncscan.yaml(5), and no other")
    func everyKeyIsInEachDocument() throws {
        let keys = Self.daemonKeys
        #expect(keys.contains("device.max_width") && keys.contains("webhook.url") && keys.contains("zbar.SYMBOLOGY.enable"), "\(keys.sorted())")
        let (markdown, markdownTwice) = try Self.markdownEntries()
        let (manPage, manPageTwice) = try Self.manPageEntries()
        let yaml = Set(try Self.yamlKeys().keys.map(Self.documented))
        // device.controls is a mapping of the camera's own control names, read from the entries a file has.
        for (document, documented) in [("config/syncscan.yaml", yaml), ("docs/configuration.md", Set(markdown.keys)),
                                       ("docs/man/syncscan.yaml.5", Set(manPage.keys))] {
            let missing = keys.subtracting(documented).sorted()
            #expect(missing.isEmpty, "the daemon reads \(missing), which \(document) does not document")
            let unknown = documented.subtracting(keys).subtracting(["device.controls"]).sorted()
            #expect(unknown.isEmpty, "\(document) documents \(unknown), which the daemon does not read")
        }
        #expect(markdownTwice.isEmpty, "docs/configuration.md documents \(markdownTwice) twice")
        #expect(manPageTwice.isEmpty, "docs/man/syncscan.yaml.5 documents \(manPageTwice) twice")
    }

    @Test("where two of the documents state a key's default, it is the same")
    func theDefaultsAgree() throws {
        let markdown = try Self.markdownEntries().entries, manPage = try Self.manPageEntries().entries
        let yaml = try Self.yamlKeys()
        var compared = 0
        for key in Self.daemonKeys.sorted() {
            guard let row = markdown[key], let rowDefault = row.defaultText else { continue }
            if let stated = manPage[key]?.defaultText {
                compared += 1
                #expect(Self.plain(stated) == Self.plain(rowDefault),
                        "\(key): docs/configuration.md's default is \"\(rowDefault)\", docs/man/syncscan.yaml.5's \"\(stated)\"")
            }
            // config/syncscan.yaml shows a set key's default, or a commented-out key's where the
            // others name one value (else its value is an example), or states it in a comment.
            let entry = yaml[key] ?? yaml.first { Self.documented($0.key) == key }?.value
            guard let entry, !entry.value.isEmpty else { continue }
            var literal = Self.literal(rowDefault)
            // One default for several keys: `1280x720` is device.max_width's 1280 and device.max_height's 720.
            if let whole = literal, row.keys.count > 1, whole.wholeMatch(of: /\d+(x\d+)+/) != nil,
               let index = row.keys.firstIndex(of: key) {
                literal = String(whole.split(separator: "x")[index])
            }
            let expected = literal ?? (entry.statedInComment ? rowDefault : nil)
            guard let expected else { continue }
            compared += 1
            let shown = entry.value.trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            let same = Self.plain(shown) == Self.plain(expected) || Double(shown).map { $0 == Double(expected) } == true
                || shown == "[\(expected)]"
            let shownAs = entry.commented ? " (commented out)" : ""
            #expect(same, "\(key): config/syncscan.yaml shows \"\(entry.value)\"\(shownAs), docs/configuration.md's default is \"\(rowDefault)\"")
        }
        #expect(compared > 100, "defaults compared: \(compared)")
    }
}
