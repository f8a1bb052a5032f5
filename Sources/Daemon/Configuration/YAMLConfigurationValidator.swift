import Foundation
import Yams
import ZBar

/// Checks a YAML configuration file against `ConfigurationSchema` before swift-configuration reads it.
///
/// swift-configuration ignores keys nobody asks for and reports a wrong type without a line, so
/// this walks the document with Yams itself: every unknown key, null value, wrong type and
/// unknown symbology becomes a `ConfigurationError.Problem` with the file's path and line. The
/// scalar checks use the same Yams constructors as `YAMLSnapshot`, so a value that passes here
/// converts there. It also records the line of every value for errors found after merging.
struct YAMLConfigurationValidator {
    /// The result of a walk.
    struct Report {
        var problems: [ConfigurationError.Problem] = []
        /// The line of each value by key name (`device.width`, `symbologies[1]`).
        var lines: [String: Int] = [:]
        /// False when the file holds no document (empty or only comments).
        var hasDocument = false
    }

    let path: String

    /// Parses `text` and checks it; YAML syntax errors come back as problems too.
    func validate(_ text: String) -> Report {
        var report = Report()
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            report.problems.append(problem(for: error))
            return report
        } catch {
            report.problems.append(.init(origin: .file(path: path, line: nil), key: "", message: "cannot parse YAML: \(error)"))
            return report
        }
        guard let root else { return report }
        report.hasDocument = true
        guard case .mapping = root else {
            report.problems.append(.init(origin: origin(root), key: "",
                                         message: "the file must be a mapping of keys (like \"source: /dev/video0\"), found \(describe(root))"))
            return report
        }
        walk(root, schema: ConfigurationSchema.tree, path: [], into: &report)
        return report
    }

    private func walk(_ node: Node, schema: ConfigurationSchema.Node, path: [String], into report: inout Report) {
        let name = path.joined(separator: ".")
        switch schema {
        case .mapping(let children):
            guard let mapping = node.mapping else {
                report.problems.append(.init(origin: origin(node), key: name,
                                             message: "expected a mapping with keys \(list(ConfigurationSchema.knownChildren(of: path))), found \(describe(node))"))
                return
            }
            for (keyNode, valueNode) in mapping {
                guard let keyScalar = keyNode.scalar else {
                    report.problems.append(.init(origin: origin(keyNode), key: name, message: "a key must be a plain word, found \(describe(keyNode))"))
                    continue
                }
                let childPath = path + [keyScalar.string]
                guard let child = children[keyScalar.string] else {
                    report.problems.append(.init(origin: origin(keyNode), key: childPath.joined(separator: "."),
                                                 message: "unknown key\(suggestion(keyScalar.string, path: path)) (known: \(list(ConfigurationSchema.knownChildren(of: path))))"))
                    continue
                }
                walk(valueNode, schema: child, path: childPath, into: &report)
            }
        case .leaf(let key):
            if let line = node.mark?.line { report.lines[name] = line }
            check(node, key: key, into: &report)
        }
    }

    private func check(_ node: Node, key: ConfigurationSchema.Key, into report: inout Report) {
        let name = key.name
        if key.kind == .symbologyList {
            checkSymbologies(node, name: name, into: &report)
            return
        }
        guard let scalar = node.scalar else {
            report.problems.append(.init(origin: origin(node), key: name, message: "expected \(key.kind.expectation), found \(describe(node))"))
            return
        }
        if node.null != nil {
            report.problems.append(.init(origin: origin(node), key: name,
                                         message: "has no value; give \(key.kind.expectation) or remove the key to use the default"))
            return
        }
        let converts: Bool = switch key.kind {
        case .string: true
        case .int: Int.construct(from: scalar) != nil
        case .double: Double.construct(from: scalar) != nil
        case .bool: Bool.construct(from: scalar) != nil
        case .symbologyList: true
        }
        if !converts {
            var hint = ""
            if scalar.style != .plain && scalar.style != .any && key.kind != .string { hint = " (remove the quotes)" }
            report.problems.append(.init(origin: origin(node), key: name,
                                         message: "expected \(key.kind.expectation), found \"\(scalar.string)\"\(hint)"))
        }
    }

    private func checkSymbologies(_ node: Node, name: String, into report: inout Report) {
        switch node {
        case .scalar(let scalar):
            if node.null != nil || scalar.string.isEmpty {
                report.problems.append(.init(origin: origin(node), key: name,
                                             message: "has no value; give a list of symbology names or \"all\""))
            } else if case .failure(let failure) = SymbologyList.parse(scalar.string.split(separator: ",", omittingEmptySubsequences: false).map(String.init)) {
                // A scalar is read as a comma-separated list, as from the environment.
                report.problems.append(.init(origin: origin(node), key: failure.index.map { "\(name)[\($0)]" } ?? name, message: failure.message))
            }
        case .sequence(let sequence):
            if sequence.isEmpty {
                report.problems.append(.init(origin: origin(node), key: name, message: SymbologyList.emptyMessage))
            }
            for (index, element) in sequence.enumerated() {
                let elementName = "\(name)[\(index)]"
                if let line = element.mark?.line { report.lines[elementName] = line }
                guard let scalar = element.scalar else {
                    report.problems.append(.init(origin: origin(element), key: elementName, message: "expected a symbology name, found \(describe(element))"))
                    continue
                }
                if scalar.string.lowercased() == "all" {
                    if sequence.count > 1 {
                        report.problems.append(.init(origin: origin(element), key: elementName,
                                                     message: "\"all\" must stand alone (write symbologies: all)"))
                    }
                } else if let problem = SymbologyList.problem(scalar.string) {
                    report.problems.append(.init(origin: origin(element), key: elementName, message: problem))
                }
            }
        default:
            report.problems.append(.init(origin: origin(node), key: name, message: "expected a list of symbology names or \"all\", found \(describe(node))"))
        }
    }

    private func origin(_ node: Node) -> ConfigurationOrigin {
        .file(path: path, line: node.mark?.line)
    }

    private func problem(for error: YamlError) -> ConfigurationError.Problem {
        switch error {
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            let contextText = context.map { "\($0.text) (line \($0.mark.line)): " } ?? ""
            return .init(origin: .file(path: path, line: mark.line), key: "", message: "invalid YAML: \(contextText)\(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return .init(origin: .file(path: path, line: context.mark.line), key: "",
                         message: "key given twice in one mapping: \(duplicates.sorted().joined(separator: ", "))")
        default:
            return .init(origin: .file(path: path, line: nil), key: "", message: "invalid YAML: \(error)")
        }
    }

    private func describe(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar): "\"\(scalar.string)\""
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }

    private func list(_ names: [String]) -> String { names.joined(separator: ", ") }

    /// ` "frps" (did you mean "fps"?)` when a known key is one edit or a case change away.
    private func suggestion(_ name: String, path: [String]) -> String {
        let known = ConfigurationSchema.knownChildren(of: path)
        let close = known.first { candidate in
            candidate.lowercased() == name.lowercased()
                || candidate.replacingOccurrences(of: "_", with: "-") == name.replacingOccurrences(of: "_", with: "-")
                || editDistance(candidate, name) <= 1
        }
        return close.map { " \"\(name)\" (did you mean \"\($0)\"?)" } ?? " \"\(name)\""
    }
}

/// Parsing of the `symbologies` value shared by the file check and the merged value.
enum SymbologyList {
    static let emptyMessage = "the list is empty; name at least one symbology (known: \(known))"
    static var known: String { Symbology.allCases.map(\.rawValue).joined(separator: ", ") }

    /// The symbologies named by `names` (each a name or `all`); the first problem otherwise.
    static func parse(_ names: [String]) -> Result<Set<Symbology>, ListProblem> {
        let trimmed = names.map { $0.trimmingCharacters(in: .whitespaces) }
        if trimmed.isEmpty || trimmed == [""] { return .failure(ListProblem(index: nil, message: emptyMessage)) }
        if trimmed.count == 1, trimmed[0].lowercased() == "all" { return .success(Set(Symbology.allCases)) }
        var set: Set<Symbology> = []
        for (index, name) in trimmed.enumerated() {
            if name.lowercased() == "all" {
                return .failure(ListProblem(index: index, message: "\"all\" must stand alone"))
            }
            guard let symbology = Symbology(configName: name) else {
                return .failure(ListProblem(index: index, message: problem(name)!))
            }
            set.insert(symbology)
        }
        return .success(set)
    }

    struct ListProblem: Error {
        var index: Int?
        var message: String
    }

    /// Why `name` is not a symbology (or `all`), or `nil` when it is one.
    static func problem(_ name: String) -> String? {
        if name.lowercased() == "all" || Symbology(configName: name) != nil { return nil }
        return "unknown symbology \"\(name)\" (known: \(known))"
    }
}

/// Edit distance counting an insertion, deletion, substitution or swap of neighbours as one
/// (optimal string alignment), for "did you mean" on short key names.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { d[i][0] = i }
    for j in 0...b.count { d[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
            }
        }
    }
    return d[a.count][b.count]
}
