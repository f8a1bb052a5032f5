import Daemon
import Foundation
import Testing

/// The man pages in `docs/man` are kept in step with the program: every option a command's `--help`
/// prints has its entry in syncscan(1), every configuration key the daemon reads has its entry in
/// syncscan.yaml(5), and neither page has an entry for an option or key that is gone.
@Suite(.offThePool) struct ManPageTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/man")

    /// The page's text with roff's `\-` as `-`.
    static func page(_ name: String) throws -> String {
        try String(contentsOf: docs.appendingPathComponent(name), encoding: .utf8).replacingOccurrences(of: "\\-", with: "-")
    }

    /// The words an entry's tag names: each `.B`/`.BI`/`.BR` line right after `.TP` or `.TQ` (`.BI --fps " RATE"`,
    /// `.BR -h ", " --help`), its quoted arguments' text included.
    static func entryTags(_ page: String) -> [String] {
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return lines.indices.dropFirst().compactMap { i in
            guard [".TP", ".TQ"].contains(lines[i - 1]), let space = lines[i].firstIndex(of: " "),
                  [".B", ".BI", ".BR"].contains(String(lines[i][..<space])) else { return nil }
            return lines[i][space...].replacingOccurrences(of: "\"", with: " ")
        }
    }

    /// `--name` tokens in `text` (`--discard-late/--no-discard-late` gives both).
    static func options(in text: String) -> Set<String> {
        Set(text.matches(of: /(?:^|[^\w-])(--[a-z][a-z0-9-]*)/).map { String($0.output.1) })
    }

    /// The subcommands `syncscan --help` lists, each with the options its `--help` prints, the top level's as "".
    static func helpOptions() throws -> [String: Set<String>] {
        let top = try SyncscanProcess.run(["--help"])
        #expect(top.status == 0, "\(top.stderr)")
        let text = String(decoding: top.stdout, as: UTF8.self)
        let subcommands = text.components(separatedBy: "SUBCOMMANDS:").last?.split(separator: "\n")
            .compactMap { $0.hasPrefix("  ") ? $0.split(separator: " ").first.map(String.init) : nil } ?? []
        #expect(subcommands.contains("run") && subcommands.contains("check-config"), "\(text)")
        var options = ["": options(in: text.components(separatedBy: "SUBCOMMANDS:")[0])]
        for command in subcommands {
            let help = try SyncscanProcess.run([command, "--help"])
            #expect(help.status == 0, "\(command) --help: \(help.stderr)")
            options[command] = Self.options(in: String(decoding: help.stdout, as: UTF8.self))
        }
        return options
    }

    @Test("every option of every command's --help has an entry in syncscan(1), and every entry is an option")
    func everyOptionIsInSyncscan1() throws {
        let printed = try Self.helpOptions()
        #expect((printed["run"] ?? []).contains("--source"), "run --help prints its options: \(printed)")
        let documented = Self.entryTags(try Self.page("syncscan.1")).reduce(into: Set<String>()) { $0.formUnion(Self.options(in: $1)) }
        for (command, options) in printed.sorted(by: { $0.key < $1.key }) {
            let missing = options.subtracting(documented).sorted()
            #expect(missing.isEmpty, "syncscan \(command) --help prints \(missing), which docs/man/syncscan.1 has no entry for")
        }
        let stale = documented.subtracting(printed.values.reduce(into: Set<String>()) { $0.formUnion($1) }).sorted()
        #expect(stale.isEmpty, "docs/man/syncscan.1 has entries for \(stale), which no command's --help prints")
    }

    @Test("every configuration key the daemon reads has an entry in syncscan.yaml(5), and every entry is a key")
    func everyKeyIsInSyncscanYaml5() throws {
        // zbar's per-symbology keys (zbar.qrcode.enable) are one entry, zbar.SYMBOLOGY.enable.
        let keys = Set(SyncscanConfiguration.keys.map { key in
            let parts = key.split(separator: ".")
            return parts.count == 3 && parts[0] == "zbar" ? "zbar.SYMBOLOGY.\(parts[2])" : key
        })
        #expect(keys.contains("device.max_width") && keys.contains("webhook.url"), "the daemon's keys: \(keys.sorted())")
        let documented = Set(Self.entryTags(try Self.page("syncscan.yaml.5")).flatMap { $0.split(separator: " ").map(String.init) })
        let missing = keys.subtracting(documented).sorted()
        #expect(missing.isEmpty, "the daemon reads \(missing), which docs/man/syncscan.yaml.5 has no entry for")
        // device.controls is a mapping of the camera's own control names, read from the entries a file has.
        let stale = documented.subtracting(keys).subtracting(["device.controls"]).sorted()
        #expect(stale.isEmpty, "docs/man/syncscan.yaml.5 has entries for \(stale), which the daemon does not read")
    }
}
