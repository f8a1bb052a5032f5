import Capture
import ConfigurationKeys
import Daemon
import SystemCalls

/// A results handler added by its descriptor alone: it records each code's text with its label,
/// `tally.label` (its one setting: lowercase letters; no label, no handler), applied in place on a reload.
struct TallySettings: Sendable, Hashable {
    var label: String

    init?(reading keys: ConfigurationKeyReader) {
        guard let label = keys.string("label") else { return nil }
        if label.isEmpty || !label.allSatisfy({ $0.isASCII && $0.isLowercase }) {
            keys.problem("label", "expected lowercase letters, found \"\(label)\"")
        }
        self.label = label
    }
}

final class TallyHandler: ResultsHandler {
    let label: LockedValue<String>
    let tallied = LockedValue<[String]>([])
    init(label: String) { self.label = LockedValue(label) }

    func handle(_ code: inout DeliveredCode) throws {
        let entry = "\(label.withLock { $0 }) \(code.code.text ?? "")"
        tallied.withLock { $0.append(entry) }
    }
}

extension SettingsKey where Value == TallySettings? {
    static var tally: Self { Self("tally", default: nil) }
}

extension ResultsHandlerDescriptor {
    static let tally = ResultsHandlerDescriptor(
        name: "tally", settings: .tally, read: TallySettings.init(reading:),
        reload: .inPlace { handler, settings, _ in if let settings { handler?.label.withLock { $0 = settings.label } } },
        make: { settings, _ in TallyHandler(label: settings.label) },
        describe: { [("label", $0.label)] })
}
