import SystemCalls
import Yams

/// A YAML configuration file in one Yams pass over its text: its values, and where each key stands.
///
/// It records each leaf's value (a key whose value is not a mapping, `ConfigurationFileValue`)
/// for `ConfigurationFileProvider`, and, for error messages, each key's line and what a leaf
/// holds, with list elements as `key[i]`, and the problems that keep the file from being read
/// at all: past `maximumKeys` keys nothing else of the file is recorded.
struct ConfigurationFileLayout {
    /// What a leaf holds, as an error message names it.
    enum Leaf: Equatable { case scalar(String, quoted: Bool), null, list, mapping }

    /// The largest configuration file read: a larger one is refused.
    static let maximumBytes = 4 * 1_048_576
    /// The most keys a file holds, every mapping's counted (`device.controls`' included).
    static let maximumKeys = 100_000

    let path: String
    private(set) var lines: [String: Int] = [:]
    private(set) var leaves: [String: Leaf] = [:]
    /// The leaves' keys in file order.
    private(set) var leafOrder: [String] = []
    /// What the provider answers, by dotted key.
    private(set) var values: [String: ConfigurationFileValue] = [:]
    /// Invalid YAML, a key given twice, a document that is not a mapping, too many keys.
    private(set) var problems: [ConfigurationError.Problem] = []
    /// Whether there is a document to read (an empty or comment-only file sets nothing).
    private(set) var hasDocument = false

    /// Reads the file at `path` (`BoundedFileRead`: a regular file of at most `maximumBytes`) and
    /// records its layout or why it cannot be read.
    init(reading path: String) { self.path = path; read() }

    private mutating func read() {
        let bytes: [UInt8]
        do {
            bytes = try BoundedFileRead.bytes(of: path, limit: Self.maximumBytes)
        } catch {
            return fail(nil, "cannot read the configuration file: \(error.message)")
        }
        do {
            guard let text = String(validating: bytes, as: UTF8.self) else { return fail(nil, "cannot read the configuration file: not valid UTF-8 text") }
            // Tags are resolved only where a key's value is read (`ConfigurationFileValue.Scalar`).
            guard let node = try Yams.compose(yaml: text, .basic) else { return }
            hasDocument = true
            guard case .mapping = node else {
                return fail(node.mark?.line, "the file must be a mapping of keys (like \"source: /dev/video0\"), found "
                            + (node.scalar.map { "\"\($0.string)\"" } ?? "a list"))
            }
            let keys = Self.keyCount(node)
            guard keys <= Self.maximumKeys else {
                return fail(nil, "the file has \(keys) keys, over the limit of \(Self.maximumKeys) keys: is it the right file?")
            }
            walk(node, name: "")
        } catch let YamlError.scanner(context, problem, mark, _), let YamlError.parser(context, problem, mark, _),
                let YamlError.composer(context, problem, mark, _) {
            fail(mark.line, "invalid YAML: " + (context.map { "\($0.text) (line \($0.mark.line)): " } ?? "") + problem)
        } catch let YamlError.duplicatedKeysInMapping(duplicates, context) {
            fail(context.mark.line, "key given twice in one mapping: \(duplicates.sorted().joined(separator: ", "))")
        } catch {
            fail(nil, "invalid YAML: \(error)")
        }
    }

    /// The origin of `key` (or of the list `key[i]` belongs to) for an error message.
    func origin(of key: String) -> ConfigurationOrigin {
        .file(path: path, line: lines[key] ?? lines[String(key.prefix { $0 != "[" })])
    }

    mutating func fail(_ line: Int?, _ message: String) {
        problems.append(.init(origin: .file(path: path, line: line), key: "", message: message))
    }

    /// The keys of every mapping under `node`, itself included.
    private static func keyCount(_ node: Node) -> Int {
        switch node {
        case .mapping(let mapping): mapping.reduce(mapping.count) { $0 + keyCount($1.value) }
        case .sequence(let sequence): sequence.reduce(0) { $0 + keyCount($1) }
        case .scalar, .alias: 0
        }
    }

    private mutating func walk(_ node: Node, name: String) {
        switch node {
        case .mapping(let mapping):
            for (key, value) in mapping {
                guard let text = key.string else {
                    return fail(key.mark?.line, "\(name.isEmpty ? "a key" : "a key of \(name)") is a list or a mapping: a key must be a name")
                }
                let child = name.isEmpty ? text : "\(name).\(text)"
                lines[child] = key.mark?.line
                walk(value, name: child)
            }
        case .scalar(let scalar):
            let value = ConfigurationFileValue.Scalar(scalar)
            record(name, value.isNull ? .null : .scalar(scalar.string, quoted: scalar.style != .plain && scalar.style != .any), .scalar(value))
        case .sequence(let sequence):
            var scalars: [ConfigurationFileValue.Scalar] = []
            scalars.reserveCapacity(sequence.count)
            for (index, element) in sequence.enumerated() {
                lines["\(name)[\(index)]"] = element.mark?.line
                guard case .scalar(let scalar) = element else {
                    return fail(element.mark?.line, "\(name)[\(index)] is a list or a mapping: a list holds values (a string, a number)")
                }
                scalars.append(.init(scalar))
            }
            record(name, .list, .list(scalars))
        case .alias:
            fail(node.mark?.line, "\(name) is an alias (*name): write the value out")
        }
    }

    private mutating func record(_ name: String, _ leaf: Leaf, _ value: ConfigurationFileValue) {
        leaves[name] = leaf
        leafOrder.append(name)
        values[name] = value
    }
}
