import Foundation

/// A Prometheus text-format file as the Python client's parser reads it (Debian's
/// `python3-prometheus-client`, run by `/usr/bin/python3`): a file it refuses throws.
public struct PrometheusText: Sendable {
    /// One sample: its name (`syncscan_frames_total`, `…_bucket`), labels and value.
    public struct Sample: Sendable, Hashable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    /// The families' types by name (`counter`, `gauge`, `histogram`).
    public var types: [String: String]
    public var samples: [Sample]

    static let script = """
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        for family in text_string_to_metric_families(open(sys.argv[1]).read()):
            for s in family.samples:
                print(json.dumps({"family": family.name, "type": family.type, "name": s.name, "labels": s.labels, "value": s.value}))
        """

    /// Parses the file at `path`.
    /// - Throws: `FixtureError.toolFailed` with the parser's message when it refuses the file.
    public init(path: String) throws {
        let run = try ExternalTool.run("/usr/bin/python3", ["-c", Self.script, path])
        guard run.status == 0 else {
            throw FixtureError.toolFailed("the Prometheus text parser refused \(path) (apt: python3-prometheus-client): \(run.describe())")
        }
        (types, samples) = ([:], [])
        for line in String(decoding: run.stdout, as: UTF8.self).split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let family = object["family"] as? String, let type = object["type"] as? String, let name = object["name"] as? String,
                  let labels = object["labels"] as? [String: String], let value = object["value"] as? Double else {
                throw FixtureError.toolFailed("unexpected parser output: \(line)")
            }
            types[family] = type
            samples.append(Sample(name: name, labels: labels, value: value))
        }
    }

    /// The value of the one sample named `name` whose labels include `labels`; `nil` when none is.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }?.value
    }

    /// The sum of every sample named `name`.
    public func sum(_ name: String) -> Double { samples.filter { $0.name == name }.map(\.value).reduce(0, +) }
}
